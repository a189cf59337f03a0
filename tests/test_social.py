"""Friends and blocks (RULES.md §12): every action and refusal of
the services and the JSON API (docs/api.md), the limits (200 friends, 500
blocks, 20 requests a day), the silence of a block, where a friend is, the
friends page in both languages, a constant number of queries per page with
10,000 rows in every list; at tables, the seat refused (``blocked``), the
blocked person's chat and quick phrases hidden from the blocker by the server
(two and more real sockets; a moderator's lines always reach), and quick
start keeping the two apart."""

from __future__ import annotations

import os
import threading
import time
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import close_old_connections, connection
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts import levels
from accounts.models import Profile, default_avatar
from games import presence, tables
from games.models import Seat
from social import blocks, friends, lists, relations
from social.models import Block, FriendRequest, Friendship
from tests.helpers import make_players, start_game
from yuanzi_site.refusals import Refused

pytestmark = pytest.mark.django_db

User = get_user_model()


def _client(user) -> Client:
    c = Client()
    c.force_login(user)
    return c


def _post(client: Client, url: str):
    r = client.post(url, HTTP_ACCEPT="application/json")
    return r.status_code, r.json()


def _act(client: Client, username: str, action: str):
    return _post(client, reverse("api_friend_action", args=[username, action]))


def _snapshot() -> tuple:
    """Every row friends and blocks are made of (a refusal must change none)."""
    return (
        sorted(Friendship.objects.values_list("user_id", "friend_id")),
        sorted(FriendRequest.objects.values_list("from_user_id", "to_user_id", "status", "silent")),
        sorted(Block.objects.values_list("blocker_id", "blocked_id")),
    )


def _refused(call, reason: str) -> None:
    before = _snapshot()
    with pytest.raises(Refused) as e:
        call()
    assert e.value.reason == reason
    assert _snapshot() == before


def _users(prefix: str, n: int) -> list:
    """``n`` users (and their profiles) made in bulk."""
    names = [f"{prefix}{i:05d}" for i in range(n)]
    User.objects.bulk_create([User(username=name) for name in names])
    made = list(User.objects.filter(username__in=names).order_by("username"))
    Profile.objects.bulk_create([Profile(user=u) for u in made])
    return made


def _no_coins(data) -> None:
    """No key naming coins anywhere in a JSON answer."""
    if isinstance(data, dict):
        for k, v in data.items():
            assert "coin" not in k.lower(), k
            _no_coins(v)
    elif isinstance(data, list):
        for v in data:
            _no_coins(v)


# --- the services --------------------------------------------------------------

def test_request_then_accept_makes_mutual_friends(owner, partner):
    assert friends.request(owner, partner) == relations.OUTGOING
    assert relations.state(owner.pk, partner.pk) == relations.OUTGOING
    assert relations.state(partner.pk, owner.pk) == relations.INCOMING
    assert friends.request(owner, partner) == relations.OUTGOING  # again: nothing new
    assert FriendRequest.objects.count() == 1
    assert friends.accept(partner, owner) == relations.FRIENDS
    assert relations.state(owner.pk, partner.pk) == relations.FRIENDS
    assert relations.state(partner.pk, owner.pk) == relations.FRIENDS
    assert Friendship.objects.count() == 2
    assert FriendRequest.objects.get().status == FriendRequest.ACCEPTED


def test_a_request_to_someone_who_asked_you_makes_you_friends(owner, partner):
    friends.request(owner, partner)
    assert friends.request(partner, owner) == relations.FRIENDS
    assert relations.are_friends(owner.pk, partner.pk)
    assert relations.are_friends(partner.pk, owner.pk)
    assert not FriendRequest.objects.filter(status=FriendRequest.PENDING).exists()


def test_decline_cancel_and_remove(owner, partner, opponent):
    friends.request(owner, partner)
    assert friends.decline(partner, owner) == relations.NONE
    assert relations.state(owner.pk, partner.pk) == relations.NONE
    friends.request(owner, opponent)
    assert friends.cancel(owner, opponent) == relations.NONE
    assert relations.state(opponent.pk, owner.pk) == relations.NONE
    friends.request(owner, partner)
    friends.accept(partner, owner)
    assert friends.remove(partner, owner) == relations.NONE
    assert not Friendship.objects.exists()
    assert relations.state(owner.pk, partner.pk) == relations.NONE


def test_every_refusal_changes_nothing(owner, partner, opponent):
    for act in (friends.request, friends.accept, friends.decline, friends.cancel, friends.remove):
        _refused(lambda act=act: act(owner, owner), "friend_self")
    _refused(lambda: blocks.block(owner, owner), "friend_self")
    _refused(lambda: friends.accept(owner, partner), "no_request")
    _refused(lambda: friends.decline(owner, partner), "no_request")
    _refused(lambda: friends.cancel(owner, partner), "no_request")
    _refused(lambda: friends.remove(owner, partner), "not_friends")
    friends.request(owner, partner)
    _refused(lambda: friends.accept(owner, partner), "no_request")  # one's own request
    _refused(lambda: friends.cancel(partner, owner), "no_request")
    friends.accept(partner, owner)
    _refused(lambda: friends.request(owner, partner), "already_friends")
    _refused(lambda: friends.accept(partner, owner), "already_friends")
    blocks.block(owner, opponent)
    _refused(lambda: friends.request(owner, opponent), "blocking")


def test_at_most_200_friends(owner, partner, opponent):
    many = _users("f", friends.FRIEND_LIMIT)
    Friendship.objects.bulk_create(
        [Friendship(user=owner, friend=u) for u in many]
        + [Friendship(user=u, friend=owner) for u in many])
    _refused(lambda: friends.request(owner, partner), "friend_limit")
    friends.request(partner, owner)  # they may ask; it cannot be accepted
    _refused(lambda: friends.accept(owner, partner), "friend_limit")
    _refused(lambda: friends.request(owner, partner), "friend_limit")  # the mutual way neither
    friends.request(opponent, partner)
    assert friends.accept(partner, opponent) == relations.FRIENDS  # others unaffected
    friends.remove(owner, many[0])
    assert friends.accept(owner, partner) == relations.FRIENDS
    assert relations.friend_count(owner.pk) == friends.FRIEND_LIMIT


def test_twenty_requests_a_day(owner):
    others = _users("r", friends.REQUESTS_PER_DAY + 2)
    for u in others[:friends.REQUESTS_PER_DAY]:
        assert friends.request(owner, u) == relations.OUTGOING
    friends.request(owner, others[0])  # asking the same person again does not count
    _refused(lambda: friends.request(owner, others[-1]), "rate_limited")
    # cancelled requests still count: the limit is on requests sent
    friends.cancel(owner, others[0])
    _refused(lambda: friends.request(owner, others[-1]), "rate_limited")
    # someone who asked first can still be befriended: that is an answer, not a request
    friends.request(others[-2], owner)
    assert friends.request(owner, others[-2]) == relations.FRIENDS
    FriendRequest.objects.filter(from_user=owner).update(
        created_at=timezone.now() - timedelta(hours=24, seconds=1))
    assert friends.request(owner, others[-1]) == relations.OUTGOING


def test_a_request_to_a_blocker_looks_sent_and_is_never_delivered(owner, partner):
    blocks.block(partner, owner)
    assert friends.request(owner, partner) == relations.OUTGOING
    assert relations.state(owner.pk, partner.pk) == relations.OUTGOING
    assert relations.state(partner.pk, owner.pk) == relations.NONE
    assert lists.incoming(partner, 1).rows == []
    assert lists.outgoing(owner, 1).rows == ["partner"]
    _refused(lambda: friends.accept(partner, owner), "no_request")
    _refused(lambda: friends.decline(partner, owner), "no_request")
    blocks.unblock(partner, owner)  # still never delivered
    assert lists.incoming(partner, 1).rows == []
    _refused(lambda: friends.accept(partner, owner), "no_request")
    # their sender may withdraw it like any other
    assert friends.cancel(owner, partner) == relations.NONE


def test_a_new_block_ends_friendship_and_pending_requests(owner, partner, opponent):
    friends.request(owner, partner)
    friends.accept(partner, owner)
    friends.request(owner, opponent)
    friends.request(opponent, partner)
    blocks.block(partner, owner)
    assert not relations.are_friends(owner.pk, partner.pk)
    assert not relations.are_friends(partner.pk, owner.pk)
    assert relations.state(owner.pk, opponent.pk) == relations.OUTGOING  # others untouched
    blocks.block(opponent, owner)
    assert relations.state(owner.pk, opponent.pk) == relations.NONE
    ended = FriendRequest.objects.get(from_user=owner, to_user=opponent)
    assert ended.status == FriendRequest.ENDED
    assert relations.blocks(opponent.pk, owner.pk)
    assert not relations.blocks(owner.pk, opponent.pk)
    assert blocks.block(opponent, owner) is True
    assert Block.objects.count() == 2
    assert blocks.unblock(opponent, owner) is False
    assert blocks.unblock(opponent, owner) is False
    assert Block.objects.count() == 1


def test_at_most_500_blocks(owner, partner):
    many = _users("b", blocks.BLOCK_LIMIT)
    Block.objects.bulk_create([Block(blocker=owner, blocked=u) for u in many])
    _refused(lambda: blocks.block(owner, partner), "block_limit")
    blocks.unblock(owner, many[0])
    assert blocks.block(owner, partner) is True


# --- the JSON API -------------------------------------------------------------

def test_api_friend_actions_and_lists(owner, partner, opponent):
    a, b = _client(owner), _client(partner)
    status, body = _act(a, "partner", "request")
    assert (status, body["ok"], body["state"]) == (200, True, "outgoing")
    assert body["message"]
    status, body = _act(a, "opponent", "request")
    assert status == 200
    assert body["ok"]
    assert body["state"] == "outgoing"
    got = b.get(reverse("api_friends")).json()
    assert got == {"friends": [], "incoming": ["owner"], "outgoing": [], "next": None}
    status, body = _act(b, "owner", "accept")
    assert (status, body["ok"], body["state"]) == (200, True, "friends")
    got = a.get(reverse("api_friends")).json()
    assert got["friends"] == [{"username": "partner", "level": 0,
                               "title": got["friends"][0]["title"], "title_en": "Clerk",
                               "avatar": default_avatar(partner.pk), "frame": 0,
                               "online": False, "table": None}]
    assert got["outgoing"] == ["opponent"]
    assert got["incoming"] == []
    o = _client(opponent)
    assert _act(o, "owner", "decline")[1]["state"] == "none"
    assert _act(a, "partner", "remove")[1]["state"] == "none"
    assert _act(a, "opponent", "request")[1]["state"] == "outgoing"
    assert _act(a, "opponent", "cancel")[1]["state"] == "none"
    assert Friendship.objects.count() == 0


def test_api_refusals_are_400_with_the_reason_and_change_nothing(owner, partner):
    a = _client(owner)
    cases = [("owner", "request", "friend_self"), ("partner", "accept", "no_request"),
             ("partner", "decline", "no_request"), ("partner", "cancel", "no_request"),
             ("partner", "remove", "not_friends")]
    before = _snapshot()
    for name, action, reason in cases:
        status, body = _act(a, name, action)
        assert (status, body["ok"], body["reason"]) == (400, False, reason), (action, body)
        assert body["message"]
    assert _snapshot() == before
    status, body = _post(a, reverse("api_block", args=["owner"]))
    assert (status, body["reason"]) == (400, "friend_self")


def test_api_unknown_user_anonymous_wrong_method_and_csrf(owner, partner):
    a = _client(owner)
    for url in (reverse("api_friend_action", args=["nobody", "request"]),
                reverse("api_block", args=["nobody"]), reverse("api_unblock", args=["nobody"])):
        status, body = _post(a, url)
        assert (status, body["ok"], body["reason"]) == (404, False, "no_user")
    r = a.get(reverse("api_user", args=["nobody"]))
    assert r.status_code == 404
    assert r.json()["reason"] == "no_user"
    anon = Client()
    for url in (reverse("api_friends"), reverse("api_blocks"), reverse("api_search") + "?q=p"):
        r = anon.get(url)
        assert r.status_code == 401
        assert r.json()["reason"] == "login_required"
    assert _act(anon, "partner", "request")[0] == 401
    assert a.get(reverse("api_friend_action", args=["partner", "request"])).status_code == 405
    assert a.post(reverse("api_friends")).status_code == 405
    assert a.post(reverse("api_friends") + "/partner/follow").status_code == 404
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(owner)
    url = reverse("api_friend_action", args=["partner", "request"])
    assert strict.post(url, HTTP_ACCEPT="application/json").status_code == 403
    assert not FriendRequest.objects.exists()
    strict.get(reverse("friends"))
    token = strict.cookies["csrftoken"].value
    r = strict.post(url, HTTP_ACCEPT="application/json", HTTP_X_CSRFTOKEN=token)
    assert r.status_code == 200
    assert r.json()["state"] == "outgoing"


def test_api_blocks_and_the_block_silence(owner, partner):
    a, b = _client(owner), _client(partner)
    status, body = _post(b, reverse("api_block", args=["owner"]))
    assert (status, body["ok"], body["blocked"]) == (200, True, True)
    assert b.get(reverse("api_blocks")).json() == {"blocks": ["owner"], "next": None}
    assert a.get(reverse("api_blocks")).json() == {"blocks": [], "next": None}
    # the blocked one is answered as if sent …
    assert _act(a, "partner", "request")[1]["state"] == "outgoing"
    assert a.get(reverse("api_friends")).json()["outgoing"] == ["partner"]
    # … and the blocker never sees it
    assert b.get(reverse("api_friends")).json()["incoming"] == []
    assert _act(b, "owner", "accept")[1]["reason"] == "no_request"
    assert "owner" not in b.get(reverse("friends")).content.decode().split('id="incoming"')[1] \
        .split('id="friends"')[0]
    assert _act(b, "owner", "request")[1]["reason"] == "blocking"
    status, body = _post(b, reverse("api_unblock", args=["owner"]))
    assert (status, body["blocked"]) == (200, False)
    assert b.get(reverse("api_blocks")).json()["blocks"] == []


def test_api_user_card_and_search_never_show_coins(owner, partner, opponent):
    a = _client(owner)
    card = Client().get(reverse("api_user", args=["partner"])).json()
    assert card["title_en"] == levels.title_en_for(0) != card["title"]
    assert card == {"username": "partner", "level": 0, "title": card["title"],
                    "title_en": card["title_en"], "rating_points": 0,
                    "avatar": default_avatar(partner.pk), "frame": 0, "finish_rate": None,
                    "rated_games": 0}
    friends.request(partner, owner)
    blocks.block(owner, opponent)
    found = a.get(reverse("api_search"), {"q": "PART"}).json()
    assert [(u["username"], u["state"], u["blocked"]) for u in found["users"]] == [
        ("partner", "incoming", False)]
    found = a.get(reverse("api_search"), {"q": "o"}).json()["users"]
    assert [(u["username"], u["state"], u["blocked"]) for u in found] == [
        ("opponent", "none", True)]  # yourself left out
    assert a.get(reverse("api_search"), {"q": ""}).status_code == 400
    assert a.get(reverse("api_search"), {"q": "x" * 151}).status_code == 400
    friends.accept(owner, partner)
    for url in (reverse("api_friends"), reverse("api_blocks"), reverse("api_search") + "?q=a",
                reverse("api_user", args=["owner"]), reverse("api_user", args=["partner"])):
        _no_coins(a.get(url).json())
    for name, action in (("partner", "remove"), ("opponent", "request"), ("partner", "request")):
        _no_coins(_act(a, name, action)[1])


def test_where_a_friend_is(owner, partner, opponent, outsider):
    for u in (partner, opponent, outsider):
        friends.request(owner, u)
        friends.accept(u, owner)
    public = tables.create_table(opponent, "公开桌")
    tables.sit(public.pk, partner, 0)
    presence.touch_presence("c-partner", public.pk, partner)
    secret = tables.create_table(outsider, "好友房", private=True)
    tables.sit(secret.pk, outsider, 1)
    presence.touch_presence("c-outsider", secret.pk, outsider)
    a = _client(owner)
    rows = {f["username"]: f for f in a.get(reverse("api_friends")).json()["friends"]}
    assert rows["partner"]["online"] is True
    assert rows["partner"]["table"] == {"id": public.pk, "name": "公开桌", "private": False,
                                        "seated": True, "free_seat": True}
    assert rows["opponent"] == {**rows["opponent"], "online": False, "table": None}
    assert rows["outsider"]["online"] is True
    assert rows["outsider"]["table"] == {"id": None, "name": None, "private": True}
    # holding the invite (the session remembers it, as the table page does) shows it
    a.get(reverse("table", args=[secret.pk]), {"invite": secret.invite_token})
    rows = {f["username"]: f for f in a.get(reverse("api_friends")).json()["friends"]}
    assert rows["outsider"]["table"]["id"] == secret.pk
    # a friend who watches (no seat) is at the table they watch
    presence.touch_presence("c-opponent", public.pk, opponent)
    rows = {f["username"]: f for f in a.get(reverse("api_friends")).json()["friends"]}
    assert rows["opponent"]["online"] is True
    assert rows["opponent"]["table"]["id"] == public.pk
    assert rows["opponent"]["table"]["seated"] is False
    # its owner sees their private table, where a friend sits, without an invite
    friends.request(partner, outsider)
    friends.accept(outsider, partner)
    tables.stand(public.pk, partner)
    tables.sit(secret.pk, partner, 0)
    mine = {f["username"]: f for f in lists.friends(outsider, 1, {}).rows}
    assert mine["partner"]["table"]["id"] == secret.pk
    # and so does a moderator
    from moderation import roles

    roles.add(owner)
    rows = {f["username"]: f for f in lists.friends(owner, 1, {}).rows}
    assert rows["partner"]["table"]["id"] == secret.pk


# --- the page -----------------------------------------------------------------

def test_friends_page_in_chinese_and_english(owner, partner, opponent, outsider):
    friends.request(partner, owner)
    friends.request(owner, opponent)
    friends.request(outsider, owner)
    friends.accept(owner, outsider)
    blocks.block(owner, User.objects.create_user("pest"))
    a = _client(owner)
    zh = a.get(reverse("friends")).content.decode()
    assert "好友" in zh
    assert "屏蔽" in zh
    assert "接受" in zh
    for name in ("partner", "opponent", "outsider", "pest"):
        assert f'data-username="{name}"' in zh
    assert reverse("api_friend_action", args=["partner", "accept"]) in zh
    assert reverse("api_unblock", args=["pest"]) in zh
    a.cookies["django_language"] = "en"
    en = a.get(reverse("friends")).content.decode()
    assert "My friends" in en
    assert "Blocked players" in en
    assert "Accept" in en
    # the level's English title in English (friends list), not the Chinese one
    title = f'<span class="social-title">{levels.title_en_for(0)}</span>'
    assert title in en
    assert f'<span class="social-title">{levels.title_for(0)}</span>' not in en
    assert f'<span class="social-title">{levels.title_for(0)}</span>' in zh
    found = a.get(reverse("friends"), {"q": "opp"}).content.decode()
    assert 'id="search-results"' in found
    assert "Request sent" in found
    assert title in found  # friend search
    assert Client().get(reverse("friends")).status_code == 302  # log in first


def test_a_form_post_without_script_redirects_back_with_a_message(owner, partner):
    a = _client(owner)
    r = a.post(reverse("api_friend_action", args=["partner", "request"]), {"next": "/friends/?q=p"})
    assert r.status_code == 302
    assert r["Location"] == "/friends/?q=p"
    assert relations.state(owner.pk, partner.pk) == relations.OUTGOING
    r = a.post(reverse("api_friend_action", args=["owner", "request"]),
               {"next": "https://evil.example/"}, follow=True)
    assert r.redirect_chain[-1][0] == reverse("friends")
    assert any(m.level_tag == "error" for m in r.context["messages"])


def test_the_page_script_and_style_are_served(client):
    for name, kind in (("social/friends.js", "text/javascript"), ("social/social.css", "text/css")):
        r = client.get(f"/static/{name}")
        assert r.status_code == 200
        assert r["Content-Type"].startswith(kind)


def test_the_admin_lists_friends_requests_and_blocks_read_only(owner, partner, admin_client):
    friends.request(owner, partner)
    blocks.block(partner, owner)
    for model in ("friendship", "friendrequest", "block"):
        url = f"/admin/social/{model}/"
        page = admin_client.get(url)
        assert page.status_code == 200, url
        assert admin_client.get(url + "add/").status_code == 403
    row = FriendRequest.objects.get()
    change = admin_client.get(f"/admin/social/friendrequest/{row.pk}/change/")
    assert change.status_code == 200  # a view, not a form
    admin_client.post(f"/admin/social/friendrequest/{row.pk}/change/", {"status": "pending"})
    assert FriendRequest.objects.get().status == FriendRequest.ENDED


# --- query counts ----------------------------------------------------------------

def _fill(viewer, n: int, prefix: str) -> None:
    """``n`` rows in each list of ``viewer``: friends, incoming and outgoing
    requests, blocks — the same ``n`` people in each (bulk: the limits and
    the consistency between lists are the services', not the database's;
    here only the row counts matter)."""
    f = i = o = b = _users(prefix, n)
    Friendship.objects.bulk_create([Friendship(user=viewer, friend=u) for u in f]
                                   + [Friendship(user=u, friend=viewer) for u in f])
    FriendRequest.objects.bulk_create([FriendRequest(from_user=u, to_user=viewer) for u in i]
                                      + [FriendRequest(from_user=viewer, to_user=u) for u in o])
    Block.objects.bulk_create([Block(blocker=viewer, blocked=u) for u in b])


def _count(client, url, django_assert_max_num_queries) -> int:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as ctx:
        started = time.perf_counter()
        r = client.get(url)
        took = time.perf_counter() - started
    assert r.status_code == 200
    print(f"{url}: {len(ctx.captured_queries)} queries, {took * 1000:.0f} ms")  # a figure, no bound
    return len(ctx.captured_queries)


def test_every_list_pages_with_a_constant_number_of_queries(owner, partner, outsider,
                                                           django_assert_max_num_queries):
    # the first friend (by name) of each viewer sits at a private table: every
    # step of where-they-are runs
    secret = tables.create_table(outsider, "好友房", private=True)
    for viewer in (owner, partner):
        Friendship.objects.bulk_create([Friendship(user=viewer, friend=outsider),
                                        Friendship(user=outsider, friend=viewer)])
    tables.sit(secret.pk, outsider, 0)
    presence.touch_presence("c", secret.pk, outsider)
    _fill(owner, 3, "s")
    _fill(partner, 10_000, "p")  # after "outsider" by name
    small, big = _client(owner), _client(partner)
    urls = [reverse("friends"), reverse("api_friends"), reverse("api_blocks"),
            reverse("api_search") + "?q=0"]
    for url in urls:
        for client in (small, big):  # the shared caches (moderators, blocks) filled first
            client.get(url)
        few = _count(small, url, django_assert_max_num_queries)
        many = _count(big, url, django_assert_max_num_queries)
        last = _count(big, url + ("&" if "?" in url else "?") + "page=200",
                      django_assert_max_num_queries)
        assert many == few, (url, few, many)
        assert last <= many, (url, many, last)
        assert many <= 16, (url, many)
    body = big.get(reverse("api_friends")).json()
    assert len(body["friends"]) == len(body["incoming"]) == len(body["outgoing"]) == 50
    assert body["next"].endswith("?page=2")
    assert [f["username"] for f in body["friends"][:2]] == ["outsider", "p00000"]
    assert big.get(reverse("api_friends"), {"page": 202}).json()["friends"] == []
    assert len(big.get(reverse("api_blocks"), {"page": 200}).json()["blocks"]) == 50
    page = big.get(reverse("friends"), {"page": 3}).content.decode()
    assert page.count('class="social-row') == 4 * 50
    assert 'rel="next"' in page
    assert 'rel="prev"' in page


# --- races (PostgreSQL) ----------------------------------------------------------------

def _race(calls) -> list[str]:
    """Run every call at once, each in its own thread and connection; returns
    what each answered (a state, or a refusal's reason), in no order."""
    results: list[str] = []
    barrier = threading.Barrier(len(calls))

    def one(call) -> None:
        try:
            barrier.wait()
            results.append(call())
        except Refused as e:
            results.append(e.reason)
        finally:
            close_old_connections()
            connection.close()

    threads = [threading.Thread(target=one, args=(c,)) for c in calls]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


PG_ONLY = pytest.mark.skipif(not os.environ.get("DATABASE_URL"),
                             reason="needs PostgreSQL (DATABASE_URL): SQLite serialises every "
                                    "writer, so parallel requests prove nothing there")


@PG_ONLY
@pytest.mark.django_db(transaction=True)
def test_thirty_parallel_requests_exactly_twenty_are_sent(owner):
    assert connection.vendor == "postgresql"
    others = _users("q", 30)
    results = _race([lambda u=u: friends.request(owner, u) for u in others])
    assert sorted(results) == ["outgoing"] * 20 + ["rate_limited"] * 10
    assert FriendRequest.objects.filter(from_user=owner).count() == 20


@PG_ONLY
@pytest.mark.django_db(transaction=True)
def test_two_people_asking_each_other_at_once_become_friends(owner):
    assert connection.vendor == "postgresql"
    others = _users("w", 10)
    calls = [lambda u=u: friends.request(owner, u) for u in others]
    calls += [lambda u=u: friends.request(u, owner) for u in others]
    results = _race(calls)
    assert sorted(results) == ["friends"] * 10 + ["outgoing"] * 10
    assert relations.friend_count(owner.pk) == 10
    assert not FriendRequest.objects.filter(status=FriendRequest.PENDING).exists()


# --- a block at tables (RULES.md §12) --------------------------------------------------------


def test_a_blocked_player_cannot_sit_at_the_blockers_tables_and_is_stood_up(
        owner, partner, opponent):
    """QA: a block did nothing at tables. Now the blocked person is stood up
    from the blocker's waiting table (told ``blocked``, never by whom), cannot
    sit at any table the blocker owns, and may sit anywhere else."""
    mine = tables.create_table(owner)
    tables.sit(mine.pk, partner, 1)
    blocks.block(owner, partner)
    assert not Seat.objects.filter(table=mine, user=partner).exists()
    before = _snapshot()
    _refused(lambda: tables.sit(mine.pk, partner, 2), "blocked")
    assert _snapshot() == before
    later = tables.create_table(owner)
    _refused(lambda: tables.sit(later.pk, partner, 3), "blocked")
    theirs = tables.create_table(opponent)
    tables.sit(theirs.pk, partner, 1)  # a table the blocker does not own
    blocks.unblock(owner, partner)
    tables.stand(theirs.pk, partner)
    tables.sit(mine.pk, partner, 2)


def test_a_block_never_stands_anyone_up_from_a_running_game(owner):
    players = make_players(3, "blk")
    game = start_game([owner, *players])
    blocks.block(owner, players[0])
    seated = set(Seat.objects.filter(table_id=game.table_id).values_list("user_id",
                                                                        flat=True))
    assert players[0].pk in seated


# --- a block in chat and in quick start (RULES.md §12) --------------------------------------

ORIGIN = (b"origin", b"http://localhost")


def _cookie(user) -> bytes:
    from django.conf import settings as django_settings

    c = Client()
    c.force_login(user)
    name = django_settings.SESSION_COOKIE_NAME
    return f"{name}={c.cookies[name].value}".encode()


class _Sock:
    """A table socket that keeps every chat line it is sent."""

    def __init__(self, comm) -> None:
        self.comm = comm
        self.history: list[str] = []
        self.lines: list[str] = []

    async def until_line(self, text: str) -> None:
        """Receive until the chat line ``text`` arrives (every line kept)."""
        for _ in range(200):
            msg = await self.comm.receive_json_from(timeout=5)
            if msg["type"] == "chat":
                self.lines.append(msg["line"]["text"])
                if msg["line"]["text"] == text:
                    return
        raise AssertionError(f"no line {text!r}")


async def _open(table_id: int, user) -> _Sock:
    from channels.db import database_sync_to_async
    from channels.testing import WebsocketCommunicator

    from yuanzi_site.asgi import application

    cookie = await database_sync_to_async(_cookie)(user)
    comm = WebsocketCommunicator(application, f"/ws/table/{table_id}/",
                                 headers=[ORIGIN, (b"cookie", cookie)])
    connected, code = await comm.connect(timeout=5)
    assert connected, code
    sock = _Sock(comm)
    while True:
        msg = await comm.receive_json_from(timeout=5)
        if msg["type"] == "chat_history":
            sock.history = [line["text"] for line in msg["lines"]]
            return sock


@pytest.mark.django_db(transaction=True)
async def test_a_block_hides_chat_and_phrases_from_the_blocker_on_the_server(
        owner, partner, outsider, mod, settings):
    """The blocked person's lines and quick phrases reach a third person and
    not the blocker (live and in the history); a moderator's lines reach the
    blocker even when blocked; an unblock shows the next lines again."""
    from channels.db import database_sync_to_async

    from games import chat, phrases

    settings.GAMES_SCHEDULER = "none"
    table = await database_sync_to_async(tables.create_table)(outsider, "旁观")
    await database_sync_to_async(blocks.block)(owner, partner)
    await database_sync_to_async(blocks.block)(owner, mod)
    await database_sync_to_async(chat.chat)(table.pk, partner, "早先的话")
    blocker = await _open(table.pk, owner)
    third = await _open(table.pk, outsider)
    assert "早先的话" not in blocker.history
    assert "早先的话" in third.history
    say = database_sync_to_async(chat.chat)
    await say(table.pk, partner, "被屏蔽的话")
    await database_sync_to_async(phrases.say)(table.pk, partner, 0)
    phrase = (await database_sync_to_async(phrases.phrases)())[0]
    await say(table.pk, mod, "管理员的话")
    await say(table.pk, outsider, "标记")
    await third.until_line("标记")
    assert third.lines == ["被屏蔽的话", phrase, "管理员的话", "标记"]
    await blocker.until_line("标记")
    assert blocker.lines == ["管理员的话", "标记"]
    late = await _open(table.pk, owner)  # the history sent on connect is filtered too
    assert late.history == ["管理员的话", "标记"]
    await database_sync_to_async(blocks.unblock)(owner, partner)
    await say(table.pk, partner, "又看见了")
    await blocker.until_line("又看见了")
    for s in (blocker, third, late):
        await s.comm.disconnect()


def test_quick_start_keeps_a_blocker_and_the_blocked_apart(owner, partner, opponent, rival):
    for u in (owner, partner, opponent, rival):  # online: quick start skips absent players
        presence.touch_person(f"chan-{u.pk}", u)
    theirs = tables.create_table(partner, "他们的")
    tables.sit(theirs.pk, partner, 0)
    blocks.block(owner, partner)
    table, alone = tables.quick_start(owner)  # the only table with company: avoided
    assert table.pk != theirs.pk
    assert alone
    table, alone = tables.quick_start(opponent)  # nobody blocks anybody: the fuller table
    assert not alone
    # the blocked side is kept away too, from a table where the blocker sits
    tables.stand(table.pk, opponent)
    tables.sit(theirs.pk, opponent, 1)
    mine = Seat.objects.get(user=owner).table
    tables.stand(theirs.pk, partner)
    table, _alone = tables.quick_start(partner)
    assert table.pk != mine.pk
    assert blocks.apart(rival.pk, [mine, theirs]) == [mine, theirs]
