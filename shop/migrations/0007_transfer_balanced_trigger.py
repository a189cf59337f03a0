"""PostgreSQL refuses a transfer whose entries do not sum to zero (DESIGN.md
"Money and points"): a deferred constraint trigger checks each transfer at
commit, so the legs of one ``shop.ledger.transfer`` may be inserted one by one.
Single credits and debits (``transfer_id`` null: a check-in, a purchase) are
exempt (the triggers' WHEN skips them, so they cost nothing). On SQLite ``check_ledger`` stays the guard (docs/deploy.md)."""

from django.db import migrations

CREATE = """
CREATE OR REPLACE FUNCTION shop_transfer_balanced() RETURNS trigger AS $$
DECLARE
    tid uuid;
    total bigint;
BEGIN
    IF TG_OP = 'DELETE' THEN tid := OLD.transfer_id; ELSE tid := NEW.transfer_id; END IF;
    IF tid IS NULL THEN RETURN NULL; END IF;
    SELECT COALESCE(SUM(amount), 0) INTO total FROM shop_coinentry WHERE transfer_id = tid;
    IF total <> 0 THEN
        RAISE EXCEPTION 'transfer % sums to %, not 0', tid, total
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END
$$ LANGUAGE plpgsql;
DROP TRIGGER IF EXISTS shop_coinentry_transfer_balanced ON shop_coinentry;
CREATE CONSTRAINT TRIGGER shop_coinentry_transfer_balanced
    AFTER INSERT OR UPDATE ON shop_coinentry
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (NEW.transfer_id IS NOT NULL)
    EXECUTE FUNCTION shop_transfer_balanced();
DROP TRIGGER IF EXISTS shop_coinentry_transfer_leg_removed ON shop_coinentry;
CREATE CONSTRAINT TRIGGER shop_coinentry_transfer_leg_removed
    AFTER DELETE ON shop_coinentry
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (OLD.transfer_id IS NOT NULL)
    EXECUTE FUNCTION shop_transfer_balanced();
"""

DROP = """
DROP TRIGGER IF EXISTS shop_coinentry_transfer_balanced ON shop_coinentry;
DROP TRIGGER IF EXISTS shop_coinentry_transfer_leg_removed ON shop_coinentry;
DROP FUNCTION IF EXISTS shop_transfer_balanced();
"""


def create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(CREATE, params=None)  # plpgsql uses %: no formatting


def drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP, params=None)


class Migration(migrations.Migration):

    dependencies = [
        ("shop", "0006_held_stake"),
    ]

    operations = [migrations.RunPython(create, drop)]
