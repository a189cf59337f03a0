"""完成率, the finish rate (RULES.md §12 "Finish rate"; ``social.reputation``):
what moves it at a game's end (a normal ending with 托管, an escape, a
moderator's close or kick, an opponent's escape, a practice game), the
5-game threshold, where it shows (snapshots, lobby rows, the profile, the
API), and a table's minimum: refused with ``reputation_too_low``, skipped by
quick start, raising it stands up those below it."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import Notification, Profile
from games import events, play, presence, snapshots, tables
from games.models import Game, Seat
from social import blocks, reputation
from tests import helpers
from tests.helpers import listening, make_players, refused, start_game

pytestmark = pytest.mark.django_db


def _profile(user) -> Profile:
    return Profile.objects.get(user=user)


def _with_record(user, record: str, counted: int | None = None) -> None:
    """Give ``user`` a finish record as if those games had been played."""
    Profile.objects.filter(user=user).update(
        finish_record=record, finish_rate=reputation.rate_of(record),
        counted_games=len(record) if counted is None else counted)


def test_rate_of_rounds_half_up_and_an_empty_record_is_whole():
    assert reputation.rate_of("") == 100
    assert reputation.rate_of("1" * 19 + "0") == 95
    assert reputation.rate_of("10") == 50
    assert reputation.rate_of("110") == 67
    assert reputation.rate_of("0") == 0


def test_an_escape_counts_against_the_escaper_only():
    users = make_players(4)
    game = start_game(users)
    play.escape(game.pk, users[1])
    escaper, other = _profile(users[1]), _profile(users[2])
    assert (escaper.finish_record, escaper.finish_rate, escaper.counted_games) == ("0", 0, 1)
    # someone else's escape: counted toward the 5 games, not in the rate
    assert (other.finish_record, other.finish_rate, other.counted_games) == ("", 100, 1)


def test_a_moderators_close_and_kick_do_not_count():
    users = make_players(4)
    game = start_game(users)
    play.end_game(game.pk, "moderator_close")
    users2 = make_players(4, prefix="k")
    kicked = start_game(users2)
    play.end_game(kicked.pk, "moderator_kick", 2)
    for u in users + users2:
        p = _profile(u)
        assert (p.finish_record, p.counted_games) == ("", 0)


def test_a_practice_games_escape_does_not_count():
    user = make_players(1)[0]
    game = start_game([user], bots=(1, 2, 3))
    play.escape(game.pk, user)
    assert _profile(user).counted_games == 0


def test_a_normal_ending_with_tuoguan_counts_as_finished():
    users = make_players(4)
    game = start_game(users)
    play.set_auto_play(game.pk, users[3], True)
    for _ in range(3000):
        game = helpers.fresh(game)
        if game.status == Game.OVER:
            break
        row = helpers.seat_row(game, game.state["turn"])
        if row.auto_play:
            helpers.force_due(game)
            assert play.run_due(game.pk)
        else:
            helpers.play_human_turn(game)
    assert game.end_reason == Game.NORMAL
    for u in users:  # 托管 included (RULES.md §12)
        p = _profile(u)
        assert (p.finish_record, p.finish_rate, p.counted_games) == ("1", 100, 1)


def test_the_record_keeps_the_last_hundred():
    user = make_players(4)
    _with_record(user[0], "0" + "1" * 99)
    assert _profile(user[0]).finish_rate == 99
    game = start_game(user)
    play.escape(game.pk, user[1])  # user 0: counted, not in the rate
    assert _profile(user[0]).finish_record == "0" + "1" * 99
    game = start_game(user)
    play.escape(game.pk, user[0])
    p = _profile(user[0])
    assert p.finish_record == "1" * 99 + "0"  # the oldest "0" fell out
    assert p.finish_rate == 99
    assert p.counted_games == 102


def test_shown_from_five_rated_games(client):
    user = make_players(1)[0]
    _with_record(user, "1110")
    assert reputation.shown(_profile(user)) is None
    card = client.get(reverse("api_user", args=[user.username])).json()
    assert (card["finish_rate"], card["rated_games"]) == (None, 4)
    _with_record(user, "11100")
    assert reputation.shown(_profile(user)) == 60
    card = client.get(reverse("api_user", args=[user.username])).json()
    assert (card["finish_rate"], card["rated_games"]) == (60, 5)
    # the 5 count rated games ended by anyone's escape, the rate only the counted ones
    _with_record(user, "", counted=5)
    assert reputation.shown(_profile(user)) == 100


def test_seats_and_lobby_rows_carry_the_rates(owner, partner, table):
    _with_record(owner, "1111011111")
    tables.sit(table.pk, partner, 2)
    tables.sit(table.pk, owner, 0)
    snap = snapshots.table_snapshot(table.pk)
    assert snap["finish_rates"] == [90, None, None, None]
    assert snap["min_finish_rate"] == 0
    assert snapshots.lobby_row(snap)["owner_finish_rate"] == 90  # what the lobby socket streams
    Seat.objects.filter(table=table, user=owner).update(user=None)
    row = next(r for r in snapshots.lobby_rows() if r["id"] == table.pk)
    assert row["owner_finish_rate"] == 90  # the owner, not seated
    assert row["min_finish_rate"] == 0
    assert "finish_rates" not in row


def test_the_profile_shows_the_rate_and_the_last_30_days_escapes(client):
    users = make_players(4)
    fresh_page = client.get(reverse("profile", args=[users[1].username])).content.decode()
    assert 'class="finish-rate newcomer"' in fresh_page
    _with_record(users[1], "11111")
    game = start_game(users)
    play.escape(game.pk, users[1])
    page = client.get(reverse("profile", args=[users[1].username]),
                      HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'data-rate="83"' in page
    assert f'data-game-id="{game.pk}"' in page
    assert 'class="escape"' in page


# --- a table's minimum ----------------------------------------------------------------------


def test_a_minimum_refuses_those_below_it_and_new_players_pass(owner, partner, rival, table):
    reputation.set_minimum(table.pk, owner, 90)
    _with_record(partner, "1111011110")  # 80 %
    e = refused("reputation_too_low", tables.sit, table.pk, partner, 1)
    assert e.params == {"minimum": 90}
    _with_record(rival, "1110")  # 4 games: 新人, passes
    tables.sit(table.pk, rival, 1)
    _with_record(partner, "1111111110")  # 90 %
    tables.sit(table.pk, partner, 2)
    assert Seat.objects.filter(table=table, user__isnull=False).count() == 2
    assert snapshots.table_snapshot(table.pk)["min_finish_rate"] == 90


def test_setting_a_minimum_is_the_owners_while_the_table_waits(owner, partner, table):
    refused("bad_minimum", reputation.set_minimum, table.pk, owner, 85)
    refused("bad_minimum", reputation.set_minimum, table.pk, owner, "90")
    refused("bad_minimum", reputation.set_minimum, table.pk, owner, True)
    refused("not_owner", reputation.set_minimum, table.pk, partner, 90)
    assert reputation.minimum_of(table.pk) == 0
    assert reputation.set_minimum(table.pk, owner, 95) == 95  # a 新人 owner passes any
    assert reputation.set_minimum(table.pk, owner, 0) == 0
    _with_record(owner, "1111111110")  # 90 %: no more than their own
    e = refused("reputation_too_low", reputation.set_minimum, table.pk, owner, 95)
    assert e.params == {"minimum": 95}
    assert reputation.minimum_of(table.pk) == 0  # unchanged
    assert reputation.set_minimum(table.pk, owner, 90) == 90
    users = make_players(4, prefix="w")
    game = start_game(users)
    refused("game_running", reputation.set_minimum, game.table_id, users[0], 80)


def test_raising_the_minimum_stands_up_those_below_it(owner, partner, rival, table,
                                                     django_capture_on_commit_callbacks):
    _with_record(partner, "1111111110")  # 90 %
    _with_record(rival, "1" * 20)
    tables.sit(table.pk, partner, 1)
    tables.sit(table.pk, rival, 2)
    with listening(events.Notice) as heard, django_capture_on_commit_callbacks(execute=True):
        reputation.set_minimum(table.pk, owner, 80)  # nobody below
        assert Seat.objects.filter(table=table, user__isnull=False).count() == 2
        reputation.set_minimum(table.pk, owner, 95)
    seated = set(Seat.objects.filter(table=table, user__isnull=False)
                 .values_list("user_id", flat=True))
    assert seated == {rival.pk}
    assert [(n.user_id, n.notice["code"]) for n in heard] == [(partner.pk, "reputation_too_low")]
    kept = Notification.objects.get(user=partner)
    assert kept.kind == reputation.KIND_KEPT_OUT
    assert kept.params == {"table": table.name, "minimum": 95}
    assert not Notification.objects.filter(user=rival).exists()


def test_quick_start_skips_a_table_whose_minimum_you_miss(owner, partner, rival):
    strict = tables.create_table(owner, "严格")
    tables.sit(strict.pk, owner, 0)
    presence.touch_person("chan-owner", owner)  # online: quick start skips absent players
    reputation.set_minimum(strict.pk, owner, 95)
    _with_record(partner, "1111011111")  # 90 %
    table, alone = tables.quick_start(partner)
    assert table.pk != strict.pk
    assert alone
    _with_record(rival, "1" * 10)
    table, alone = tables.quick_start(rival)
    assert table.pk == strict.pk
    assert not alone


def test_the_create_form_sets_the_minimum(owner):
    c = Client()
    c.force_login(owner)
    r = c.post(reverse("table_new"), {"name": "九成", "min_finish_rate": "90"})
    assert r.status_code == 302
    table = owner.owned_tables.get(name="九成")
    assert reputation.minimum_of(table.pk) == 90
    c.post(reverse("table_new"), {"name": "乱填", "min_finish_rate": "77"})
    assert reputation.minimum_of(owner.owned_tables.get(name="乱填").pk) == 0


def test_the_lobby_shows_the_owners_rate_and_the_minimum_both_languages(owner, partner):
    _with_record(owner, "1111111110")
    strict = tables.create_table(owner, "九成桌")
    reputation.set_minimum(strict.pk, owner, 90)
    tables.create_table(partner, "新人桌")
    c = Client()
    c.force_login(partner)
    zh = c.get("/").content.decode()
    assert 'class="badge finish-rate" data-rate="90"' in zh
    assert "完成率 90%" in zh
    assert 'data-min="90"' in zh
    assert "要求 ≥ 90%" in zh
    assert 'class="badge finish-rate newcomer"' in zh  # the partner's table: 新人
    assert 'name="min_finish_rate"' in zh  # the create form's minimum
    en = c.get("/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Finish 90%" in en
    assert "Needs ≥ 90%" in en


def test_the_rules_page_explains_the_finish_rate_and_blocks(client):
    zh = client.get(reverse("rules")).content.decode()
    assert 'id="finish-rate"' in zh
    assert "完成率" in zh
    assert 'id="blocks"' in zh
    en = client.get(reverse("rules"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'id="finish-rate"' in en
    assert "Finish rate" in en
    assert 'id="blocks"' in en


def test_the_table_page_boots_the_viewers_own_rate_and_blocks(owner, partner, table):
    _with_record(partner, "11111")
    blocks.block(partner, owner)
    c = Client()
    c.force_login(partner)
    page = c.get(reverse("table", args=[table.pk])).content.decode()
    assert 'id="social-boot"' in page
    boot = page.split('id="social-boot" type="application/json">')[1].split("</script>")[0]
    assert json.loads(boot) == {"finish_rate": 100, "blocked": ["owner"],
                                "minimums": [0, 80, 90, 95]}
