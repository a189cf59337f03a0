"""The coins ledger (shop.ledger; DESIGN.md "Money and points", RULES.md §9, §12):
credits, debits, transfers, refusals that change nothing, the lock order, the
sign-up grant, the opening-balance migration, check_ledger, grant_coins, the
read-only admin, and (PostgreSQL) concurrent debits."""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from django.apps import apps
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import DatabaseError, connection, transaction
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.models import Profile
from games.models import Table
from shop import ledger
from shop.ledger import LedgerError, Leg, NotEnoughCoins, Reason
from shop.models import CoinEntry
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parent.parent
POSTGRES_ONLY = "needs PostgreSQL (DATABASE_URL): SQLite serialises writers and has no row locks"


def coins(user) -> int:
    return Profile.objects.get(user=user).coins


def state() -> tuple[list, list]:
    """Every balance and every entry: what a refusal must leave unchanged."""
    return (
        list(Profile.objects.order_by("user_id").values_list("user_id", "coins")),
        list(CoinEntry.objects.order_by("id").values_list("id", "user_id", "amount")),
    )


# --- sign-up grant --------------------------------------------------------------


def test_new_account_gets_its_coins_through_the_ledger(owner):
    entry = CoinEntry.objects.get(user=owner)
    assert (entry.amount, entry.balance_after, entry.reason) == (2000, 2000, Reason.SIGNUP)
    assert coins(owner) == ledger.SIGNUP_GRANT == 2000
    assert owner.profile.coins == 2000  # the creator's cached object is current too
    assert ledger.audit().ok


def test_fixture_loading_grants_nothing(django_user_model):
    user = django_user_model.objects.create_user(username="plain", password=PASSWORD)
    Profile.objects.filter(user=user).delete()
    CoinEntry.objects.filter(user=user).delete()
    Profile(user=user).save_base(raw=True)  # what loaddata does
    assert coins(user) == 0
    assert not CoinEntry.objects.filter(user=user).exists()


# --- credit and debit -------------------------------------------------------------


def test_credit_and_debit_move_coins_and_record_their_cause(owner, partner):
    table = Table.objects.create(owner=owner, name="t")
    with transaction.atomic():
        got = ledger.credit(owner, 150, Reason.CHECKIN, note="day 2")
        paid = ledger.debit(owner.pk, 600, Reason.PURCHASE, item_code="timer", table=table)
        moved = ledger.credit(partner, 1, Reason.GRANT, other=owner)
    assert (got.amount, got.balance_after, got.note) == (150, 2150, "day 2")
    assert (paid.amount, paid.balance_after, paid.item_code, paid.table) == (
        -600, 1550, "timer", table
    )
    assert paid.transfer_id is None
    assert moved.other == owner
    assert (coins(owner), coins(partner)) == (1550, 2001)
    assert list(owner.coin_entries.order_by("id").values_list("amount", flat=True)) == [
        2000, 150, -600,
    ]


def test_debit_to_exactly_zero_is_allowed(owner):
    with transaction.atomic():
        entry = ledger.debit(owner, 2000, Reason.WAGER)
    assert entry.balance_after == 0 == coins(owner)


def test_debit_beyond_the_balance_is_refused_and_changes_nothing(owner):
    before = state()
    with transaction.atomic():
        with pytest.raises(NotEnoughCoins) as refused:
            ledger.debit(owner, 2001, Reason.PURCHASE, item_code="sign")
        # the caller's transaction is still usable (a 定时器 that does not fire
        # must not spoil the move that asked for it)
        ledger.credit(owner, 5, Reason.RELIEF)
    assert refused.value.code == "not_enough_coins"
    assert refused.value.params == {"user_id": owner.pk, "balance": 2000, "needed": 2001,
                                    "held": 0}
    balances, entries = state()
    assert balances == [(owner.pk, 2005)]
    assert entries[:-1] == before[1]


@pytest.mark.parametrize(
    ("call", "code"),
    [
        (lambda u: ledger.credit(u, 0, Reason.GRANT), "bad_amount"),
        (lambda u: ledger.credit(u, -5, Reason.GRANT), "bad_amount"),
        (lambda u: ledger.debit(u, -5, Reason.GRANT), "bad_amount"),
        (lambda u: ledger.credit(u, True, Reason.GRANT), "bad_amount"),
        (lambda u: ledger.credit(u, 2.0, Reason.GRANT), "bad_amount"),
        (lambda u: ledger.credit(u, "5", Reason.GRANT), "bad_amount"),
        (lambda u: ledger.credit(u, ledger.MAX_AMOUNT + 1, Reason.GRANT), "bad_amount"),
        (lambda u: ledger.credit(u, 5, "gift"), "bad_reason"),
        (lambda u: ledger.credit(u, 5, Reason.GRANT, note="x" * 201), "bad_note"),
        (lambda u: ledger.credit(u, 5, Reason.PURCHASE, item_code="x" * 33), "bad_item"),
        (lambda u: ledger.credit(10**9, 5, Reason.GRANT), "no_profile"),
    ],
)
def test_bad_input_is_refused_with_a_code_and_changes_nothing(owner, call, code):
    before = state()
    with transaction.atomic(), pytest.raises(LedgerError) as refused:
        call(owner)
    assert refused.value.code == code
    assert state() == before


@pytest.mark.django_db(transaction=True)
def test_writes_outside_a_transaction_are_refused(django_user_model):
    user = django_user_model.objects.create_user(username="loose", password=PASSWORD)
    before = state()
    with pytest.raises(transaction.TransactionManagementError):
        ledger.credit(user, 5, Reason.GRANT)
    with pytest.raises(transaction.TransactionManagementError):
        ledger.transfer([(user, -5), (user, 5)], Reason.WAGER)
    assert state() == before


# --- transfers ----------------------------------------------------------------------


def test_two_party_transfer_records_each_side_as_the_others(owner, partner):
    with transaction.atomic():
        paid, got = ledger.transfer([Leg(owner, -90), Leg(partner, 90)], Reason.ITEM,
                                    item_code="timer")
    assert (paid.other_id, got.other_id) == (partner.pk, owner.pk)
    assert paid.transfer_id == got.transfer_id is not None
    assert (coins(owner), coins(partner)) == (1910, 2090)


def test_wager_split_of_the_worked_example(owner, partner, opponent, outsider):
    """The wager rules' worked example with a short payer: N (seat 0) holds 7 and
    pays it, W (seat 3) gets 4 and E (seat 1) 3; S (seat 2) pays 10, E and W 5 each.
    One transfer, zero sum."""
    north, east, south, west = owner, opponent, partner, outsider
    with transaction.atomic():
        ledger.debit(north, 1993, Reason.PURCHASE)
        legs = [
            Leg(north, -7), Leg(west, 4, north), Leg(east, 3, north),
            Leg(south, -10), Leg(east, 5, south), Leg(west, 5, south),
        ]
        entries = ledger.transfer(legs, Reason.WAGER)
    assert [(e.user_id, e.amount, e.other_id) for e in entries] == [
        (north.pk, -7, None), (west.pk, 4, north.pk), (east.pk, 3, north.pk),
        (south.pk, -10, None), (east.pk, 5, south.pk), (west.pk, 5, south.pk),
    ]
    assert [e.balance_after for e in entries] == [0, 2004, 2003, 1990, 2008, 2009]
    assert len({e.transfer_id for e in entries}) == 1
    assert [coins(u) for u in (north, east, south, west)] == [0, 2008, 1990, 2009]


def test_zero_legs_write_no_rows(owner, partner, opponent):
    with transaction.atomic():
        entries = ledger.transfer([(owner, -1), (partner, 1), (opponent, 0)], Reason.WAGER)
        assert ledger.transfer([(owner, 0)], Reason.WAGER) == []
    assert [e.user_id for e in entries] == [owner.pk, partner.pk]
    assert not CoinEntry.objects.filter(user=opponent, reason=Reason.WAGER).exists()


def test_unbalanced_transfer_is_refused(owner, partner):
    before = state()
    with transaction.atomic(), pytest.raises(LedgerError) as refused:
        ledger.transfer([(owner, -270), (partner, 90)], Reason.ITEM)
    assert (refused.value.code, refused.value.params) == ("unbalanced", {"total": -180})
    assert state() == before


def test_a_short_payer_refuses_the_whole_transfer(owner, partner, opponent):
    with transaction.atomic():
        ledger.debit(opponent, 1950, Reason.PURCHASE)
    before = state()
    with transaction.atomic(), pytest.raises(NotEnoughCoins) as refused:
        ledger.transfer([(owner, -100), (opponent, -100), (partner, 200)], Reason.WAGER)
    assert refused.value.params == {"user_id": opponent.pk, "balance": 50, "needed": 100,
                                    "held": 0}
    assert state() == before


def test_lock_balances_reads_locked_balances(owner, partner):
    with transaction.atomic():
        assert ledger.lock_balances([partner, owner.pk]) == {owner.pk: 2000, partner.pk: 2000}
        with pytest.raises(LedgerError) as refused:
            ledger.lock_balances([10**9])
    assert refused.value.code == "no_profile"


# --- lock order -----------------------------------------------------------------------


def test_profiles_locked_in_ascending_user_id_and_entries_inserted_last(
    owner, partner, opponent
):
    users = sorted([owner, partner, opponent], key=lambda u: u.pk)
    legs = [(users[2], -30), (users[0], 10), (users[1], 20)]  # descending payer first
    with CaptureQueriesContext(connection) as queries, transaction.atomic():
        ledger.transfer(legs, Reason.WAGER)
    sql = [q["sql"] for q in queries.captured_queries]
    locks = [i for i, s in enumerate(sql) if s.startswith("SELECT") and "accounts_profile" in s]
    assert len(locks) == 1
    lock = sql[locks[0]]  # selects user_id first: ORDER BY 1 is by user id
    assert lock.startswith('SELECT "accounts_profile"."user_id"')
    for_update = " FOR UPDATE" if connection.vendor == "postgresql" else ""
    assert re.search(rf'ORDER BY (1|"accounts_profile"\."user_id") ASC{for_update}$', lock), lock
    updates = [i for i, s in enumerate(sql) if s.startswith('UPDATE "accounts_profile"')]
    assert [sql[i].rsplit("=", 1)[1].strip() for i in updates] == [str(u.pk) for u in users]
    inserts = [i for i, s in enumerate(sql) if s.startswith('INSERT INTO "shop_coinentry"')]
    assert len(inserts) == 1
    assert inserts[0] > max(updates) > min(updates) > locks[0]


@pytest.mark.django_db(transaction=True)
def test_transfer_holds_the_lower_user_id_while_waiting_for_the_higher(django_user_model):
    """PostgreSQL: while another transaction holds B's profile, a B → A transfer
    has already locked A (ascending user id) and waits for B — it never holds B
    while waiting for A, so two transfers cannot deadlock."""
    if connection.vendor != "postgresql":
        pytest.skip(POSTGRES_ONLY)
    a, b = (django_user_model.objects.create_user(username=n, password=PASSWORD) for n in "ab")
    held, release = threading.Event(), threading.Event()

    def hold_b():
        try:
            with transaction.atomic():
                ledger.lock_balances([b])
                held.set()
                release.wait(10)
        finally:
            connection.close()

    def pay():
        try:
            with transaction.atomic():
                ledger.transfer([(b, -5), (a, 5)], Reason.WAGER)
        finally:
            connection.close()

    holder, payer = threading.Thread(target=hold_b), threading.Thread(target=pay)
    holder.start()
    assert held.wait(10)
    payer.start()
    a_locked = False
    deadline = time.monotonic() + 10
    while not a_locked and time.monotonic() < deadline:
        try:
            with transaction.atomic():
                Profile.objects.select_for_update(nowait=True).get(user=a)
            time.sleep(0.05)  # free: the payer has not reached its lock yet
        except DatabaseError:
            a_locked = True
    still_waiting = payer.is_alive()
    release.set()
    holder.join(10)
    payer.join(10)
    assert a_locked
    assert still_waiting
    assert (coins(a), coins(b)) == (2005, 1995)


@pytest.mark.django_db(transaction=True)
def test_fifty_parallel_debits_with_coins_for_ten(django_user_model):
    """PostgreSQL, 50 threads (50 connections) at once: exactly 10 debits of 200
    from 2,000 succeed, 40 are refused, the balance is exactly 0."""
    if connection.vendor != "postgresql":
        pytest.skip(POSTGRES_ONLY)
    user = django_user_model.objects.create_user(username="spender", password=PASSWORD)
    start = threading.Barrier(50, timeout=30)

    def buy(_: int) -> str:
        try:
            start.wait()
            with transaction.atomic():
                ledger.debit(user.pk, 200, Reason.PURCHASE, item_code="sign")
            return "bought"
        except NotEnoughCoins:
            return "refused"
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=50) as pool:
        results = list(pool.map(buy, range(50)))
    assert (results.count("bought"), results.count("refused")) == (10, 40)
    assert coins(user) == 0
    afters = CoinEntry.objects.filter(user=user, reason=Reason.PURCHASE).order_by("id")
    assert list(afters.values_list("balance_after", flat=True)) == list(range(1800, -1, -200))
    assert ledger.audit().ok


# --- opening balances (shop/migrations/0002) -----------------------------------------------


def test_opening_balance_migration_covers_every_existing_account(owner, partner, outsider):
    migration = importlib.import_module("shop.migrations.0002_opening_balances")
    CoinEntry.objects.exclude(user=outsider).delete()  # two accounts from before the ledger
    Profile.objects.filter(user=partner).update(coins=75)
    migration.open_balances(apps, None)
    opening = CoinEntry.objects.filter(reason=Reason.OPENING).order_by("user_id")
    assert [(e.user_id, e.amount, e.balance_after) for e in opening] == [
        (owner.pk, 2000, 2000), (partner.pk, 75, 75),
    ]
    migration.open_balances(apps, None)  # again: nothing twice
    assert CoinEntry.objects.count() == 3
    assert ledger.audit().ok


# --- check_ledger ------------------------------------------------------------------------------


def test_check_ledger_passes_with_one_summary_line(owner, partner, capsys):
    with transaction.atomic():
        ledger.transfer([(owner, -10), (partner, 10)], Reason.WAGER)
    call_command("check_ledger")
    out = capsys.readouterr().out
    assert out == "ledger OK: 2 accounts, 4 entries, 1 transfers\n"


def _exit_status(*argv: str) -> int:
    """The exit status ``manage.py`` would give: ``run_from_argv`` exits with a
    ``CommandError``'s ``returncode`` (it also closes every connection, which
    would end the test's transaction, so it is not called here)."""
    try:
        call_command(*argv)
    except CommandError as e:
        return e.returncode
    return 0


@pytest.mark.ledger_unbalanced
def test_check_ledger_fails_on_a_tampered_balance(owner, partner, capsys):
    Profile.objects.filter(user=partner).update(coins=2500)
    with pytest.raises(CommandError, match="ledger FAILED: 1 differences in 2 accounts"):
        call_command("check_ledger")
    assert f"partner (user {partner.pk}): coins 2500, entries sum 2000" in capsys.readouterr().err
    assert _exit_status("check_ledger") == 1


@pytest.mark.ledger_unbalanced
def test_check_ledger_fails_on_an_unbalanced_transfer(owner, partner, capsys):
    if connection.vendor == "postgresql":  # the database refuses this itself (see below);
        with connection.cursor() as cursor:  # check_ledger must still see it (rolled back)
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # flush the fixtures' pending FK checks
            cursor.execute("ALTER TABLE shop_coinentry DISABLE TRIGGER USER")
            cursor.execute("SET CONSTRAINTS ALL DEFERRED")
    with transaction.atomic():
        paid, _ = ledger.transfer([(owner, -10), (partner, 10)], Reason.WAGER)
    paid.delete()  # one side of the transfer lost; owner's balance now differs too
    Profile.objects.filter(user=owner).update(coins=2000)  # hide that: only the transfer shows
    with pytest.raises(CommandError, match="1 differences"):
        call_command("check_ledger")
    assert f"transfer {paid.transfer_id} sums to 10, not 0" in capsys.readouterr().err


@pytest.mark.ledger_unbalanced
def test_check_ledger_fails_on_a_broken_running_balance(owner, capsys):
    with transaction.atomic():
        entry = ledger.credit(owner, 5, Reason.CHECKIN)
    CoinEntry.objects.filter(pk=entry.pk).update(amount=6)
    Profile.objects.filter(user=owner).update(coins=2006)
    CoinEntry.objects.filter(pk=entry.pk).update(balance_after=2006)
    CoinEntry.objects.filter(user=owner, reason=Reason.SIGNUP).update(balance_after=1999)
    with pytest.raises(CommandError):
        call_command("check_ledger")
    assert "balance_after 1999, running sum 2000" in capsys.readouterr().err


# --- grant_coins ----------------------------------------------------------------------------


def test_grant_coins_writes_an_audited_entry(owner, capsys):
    call_command("grant_coins", "owner", "500", "--reason", "tournament prize")
    call_command("grant_coins", "owner", "-2500", "--reason", "reverse a mistake")
    first, second = CoinEntry.objects.filter(reason=Reason.GRANT).order_by("id")
    assert (first.amount, first.note, second.amount, second.balance_after) == (
        500, "tournament prize", -2500, 0,
    )
    assert capsys.readouterr().out.splitlines()[-1].startswith("owner: -2500 coins, balance 0")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["owner", "-2001", "--reason", "too much"], "not_enough_coins"),
        (["owner", "0", "--reason", "nothing"], "bad_amount"),
        (["owner", "5", "--reason", "  "], "bad_note"),
        (["owner", "5", "--reason", "x" * 201], "bad_note"),
        (["nobody", "5", "--reason", "who"], "unknown_user"),
    ],
)
def test_grant_coins_refusals_change_nothing(owner, argv, message):
    before = state()
    with pytest.raises(CommandError, match=message):
        call_command("grant_coins", *argv)
    assert state() == before


def test_grant_coins_beyond_the_balance_exits_non_zero(owner):
    with pytest.raises(CommandError, match=r"^not_enough_coins: ") as refused:
        call_command("grant_coins", "owner", "-2001", "--reason", "too much")
    assert refused.value.returncode == 1  # manage.py's exit status
    assert coins(owner) == 2000


# --- admin ------------------------------------------------------------------------------------


@pytest.fixture
def admin_client(client, django_user_model):
    boss = django_user_model.objects.create_superuser(username="boss", password=PASSWORD)
    client.force_login(boss)
    return client


def test_admin_shows_coins_and_rating_points_read_only(admin_client, owner):
    profile = owner.profile
    url = reverse("admin:accounts_profile_change", args=[profile.pk])
    response = admin_client.get(url)
    page = response.content.decode()
    assert 'name="coins"' not in page
    assert 'name="rating_points"' not in page
    assert "2000" in page
    form = response.context["adminform"].form  # resubmit every editable field as shown
    fields = {name: form.initial.get(name, f.initial) for name, f in form.fields.items()}
    assert "coins" not in fields
    assert "rating_points" not in fields
    fields["games_played"] = 7
    response = admin_client.post(url, {**fields, "coins": 999_999, "rating_points": 50_000})
    assert response.status_code == 302
    profile.refresh_from_db()
    assert (profile.coins, profile.rating_points, profile.games_played) == (2000, 0, 7)
    assert admin_client.get(reverse("admin:accounts_profile_add")).status_code == 403


def test_admin_lists_ledger_entries_read_only(admin_client, owner):
    entry = CoinEntry.objects.get(user=owner)
    changelist = reverse("admin:shop_coinentry_changelist")
    found = admin_client.get(changelist, {"q": "owner", "reason__exact": "signup"})
    assert found.status_code == 200
    assert list(found.context["cl"].result_list) == [entry]
    assert admin_client.get(changelist, {"q": "nobody-at-all"}).context["cl"].result_count == 0
    detail = admin_client.get(reverse("admin:shop_coinentry_change", args=[entry.pk]))
    assert detail.status_code == 200
    assert 'name="amount"' not in detail.content.decode()
    assert admin_client.get(reverse("admin:shop_coinentry_add")).status_code == 403
    delete = reverse("admin:shop_coinentry_delete", args=[entry.pk])
    assert admin_client.post(delete, {"post": "yes"}).status_code == 403
    assert CoinEntry.objects.filter(pk=entry.pk).exists()


# --- the autouse guard (tests/conftest.py) ------------------------------------------------

if os.environ.get("LEDGER_GUARD_PROBE"):

    def test_probe_tampers_with_a_balance(owner):
        """Run only by the test below, in a child pytest: must fail at teardown."""
        Profile.objects.filter(user=owner).update(coins=1)


@pytest.mark.django_db(False)
def test_every_test_that_breaks_the_ledger_fails():
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "CI")}
    child = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         "tests/test_ledger.py::test_probe_tampers_with_a_balance"],
        cwd=ROOT, env={**env, "LEDGER_GUARD_PROBE": "1"},
        capture_output=True, text=True, timeout=300,
    )
    said = child.stdout + child.stderr  # all of it, should this ever fail in CI
    assert child.returncode != 0, said
    # the probe passed and its teardown's ledger check errored (a warning may sit between)
    assert re.search(r"\b1 passed\b.*\b1 error\b", child.stdout), said
    assert "ledger FAILED: 1 differences" in child.stdout, said


# --- the database's own guard (PostgreSQL) ---------------------------------------------------


UNBALANCED_LEG = """
INSERT INTO shop_coinentry (user_id, amount, balance_after, reason, item_code, transfer_id,
                            note, created_at)
VALUES (%s, %s, %s, 'wager', '', %s, '', now())
"""


@pytest.mark.django_db(transaction=True)
def test_postgres_refuses_a_transfer_that_does_not_sum_to_zero(owner, partner):
    """Raw SQL bypassing ``shop.ledger``: one leg of a transfer alone is refused
    at commit by the deferred constraint trigger (migration shop 0007), and nothing
    is written; two legs that sum to zero commit."""
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (DATABASE_URL): SQLite has no constraint triggers; "
                    "check_ledger is its guard")
    import uuid

    from django.db import IntegrityError

    lone = uuid.uuid4()
    with (pytest.raises(IntegrityError, match="sums to 10, not 0"), transaction.atomic(),
          connection.cursor() as cursor):
        cursor.execute(UNBALANCED_LEG, [owner.pk, 10, 2010, lone])
    assert not CoinEntry.objects.filter(transfer_id=lone).exists()

    pair = uuid.uuid4()
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(UNBALANCED_LEG, [owner.pk, 10, 2010, pair])
        cursor.execute(UNBALANCED_LEG, [partner.pk, -10, 1990, pair])
    assert CoinEntry.objects.filter(transfer_id=pair).count() == 2
    # keep the ledger whole for the teardown audit: the balances follow the raw entries
    Profile.objects.filter(user=owner).update(coins=2010)
    Profile.objects.filter(user=partner).update(coins=1990)

    with pytest.raises(IntegrityError, match="sums to"), transaction.atomic():
        CoinEntry.objects.filter(transfer_id=pair, user=owner).delete()  # one leg lost
    assert CoinEntry.objects.filter(transfer_id=pair).count() == 2
