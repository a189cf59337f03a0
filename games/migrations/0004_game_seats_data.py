# Data for 0003 (its own migration: PostgreSQL refuses to alter a table with
# pending deferred-constraint triggers in the same transaction). Every game's
# players / auto_play / timeouts become GameSeat rows, rated wins are counted
# from finished rated games, and each user keeps only their newest waiting seat
# (one seat per person, RULES.md §12; running games are left alone).

from django.db import migrations


def forwards(apps, schema_editor):
    Game = apps.get_model("games", "Game")
    GameSeat = apps.get_model("games", "GameSeat")
    Seat = apps.get_model("games", "Seat")
    Profile = apps.get_model("accounts", "Profile")
    wins: dict[int, int] = {}
    for game in Game.objects.all().iterator():
        players = game.players or []
        auto = list(game.auto_play or []) + [False] * 4
        timeouts = list(game.timeouts or []) + [0] * 4
        GameSeat.objects.bulk_create(
            GameSeat(game=game, index=i, user_id=p.get("user_id"),
                     username=p.get("username") or "", level=p.get("level") or 0,
                     bot="normal" if p.get("bot") else "", auto_play=bool(auto[i]),
                     timeouts=int(timeouts[i] or 0))
            for i, p in enumerate(players)
        )
        result = (game.state or {}).get("result") or {}
        if game.status == "over" and not game.practice and result.get("winner") is not None:
            for i, p in enumerate(players):
                if p.get("user_id") and i % 2 == result["winner"]:
                    wins[p["user_id"]] = wins.get(p["user_id"], 0) + 1
    for user_id, n in wins.items():
        Profile.objects.filter(user_id=user_id).update(rated_wins=n)
    seen: set[int] = set()
    # a seat at a running table first (kept), then waiting tables newest first
    seats = Seat.objects.exclude(user=None).select_related("table").order_by(
        "table__status", "-table__created_at", "-table__pk")
    for seat in seats:
        if seat.user_id in seen and seat.table.status == "waiting":
            Seat.objects.filter(pk=seat.pk).update(user=None, ready=False)
        seen.add(seat.user_id)



class Migration(migrations.Migration):

    dependencies = [('games', '0003_game_seats')]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
