"""The 新手教程: every scripted deal is valid under the real engine
and its wanted play is legal; the API judges plays with the engine, explains a
wrong one (in Chinese by default, in English) and changes nothing; every lesson
can be finished through the API; an account's progress is stored, a visitor's
is not; no table, game or record is touched."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from django.urls import reverse

from games import engine, tutorial
from games.models import Game, GameEvent, Table, TutorialProgress

pytestmark = pytest.mark.django_db

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}


def _play_steps():
    for n, les in enumerate(tutorial.LESSONS, start=1):
        for i, step in enumerate(les.steps):
            if step.kind == "play":
                yield n, i, step


def _right(step: tutorial.Step) -> dict:
    """The answer a learner would give: a legal play the step wants (found by
    the engine from the hand), or the right option of a check."""
    if step.kind == "choice":
        return {"choice": next(i for i, o in enumerate(step.options) if o.why is None)}
    if step.want.get("pass"):
        return {"cards": []}
    table = tutorial.table_play(step)
    for play in engine.legal_plays(step.hand, table, step.dao):
        if all(getattr(play, k) == v for k, v in step.want.items()):
            return {"cards": list(play.cards)}
    raise AssertionError(f"no legal play in {step.hand} meets {step.want}")


def _post(client, url, body, **extra):
    return client.post(url, json.dumps(body), content_type="application/json", **extra)


def test_there_are_eight_lessons_each_ending_with_a_check():
    assert tutorial.CODES == ("basics", "bombs", "atoms", "hydrogen", "dao", "jiefeng",
                              "scoring", "clamp")
    for les in tutorial.LESSONS:
        assert les.steps[-1].kind == "choice"
        assert any(s.kind == "play" for s in les.steps)
        for s in les.steps:
            if s.kind == "choice":
                assert sum(o.why is None for o in s.options) == 1
                assert all(o.why is None or ("§" in o.why[0] and "§" in o.why[1])
                           for o in s.options)


@pytest.mark.parametrize(("n", "i", "step"), list(_play_steps()),
                         ids=[f"{n}-{i}" for n, i, _ in _play_steps()])
def test_every_scripted_deal_is_valid_and_its_wanted_play_legal(n, i, step):
    dao = step.dao
    # one shoe holds every card of the step: hand, the plays before and after
    seen = Counter(engine.parse_cards(step.hand))
    for bp in (*step.before, *step.after):
        seen += Counter(engine.parse_cards(bp.cards))
    assert all(count <= 3 for count in seen.values()), seen
    # the scripted plays are legal, in turn order, each beating the one before
    last = None
    seat = None
    for bp in step.before:
        if seat is not None:
            assert bp.seat == engine.next_seat(seat)
        seat = bp.seat
        if bp.cards:
            play = engine.classify(bp.cards, dao)
            assert play is not None, bp
            assert last is None or engine.beats(play, last), (bp, last)
            last = play
    if step.before:
        assert engine.next_seat(step.before[-1].seat) == tutorial.SOUTH
    assert tutorial.table_play(step) == last
    answer = _right(step)
    if answer["cards"]:
        play = engine.classify(answer["cards"], dao)
        assert play in engine.legal_plays(step.hand, last, dao)
        last = play
    seat = tutorial.SOUTH
    for bp in step.after:
        assert bp.seat == engine.next_seat(seat)
        seat = bp.seat
        if bp.cards:  # a scripted follow-up of a lead (none beat a play here)
            assert last is None or engine.beats(engine.classify(bp.cards, dao), last)
    # every legal play the step wants is judged right, every other wrong
    for play in engine.legal_plays(step.hand, tutorial.table_play(step), dao):
        r = tutorial.judge(n, i, cards=list(play.cards), lang="en")
        wanted = all(getattr(play, k) == v for k, v in step.want.items()) \
            and not step.want.get("pass")
        assert r["ok"] is wanted, (play, r)


def test_judge_uses_the_engine_for_each_kind_of_wrong_play():
    # a pair on a single: kinds do not cross (Rules §3)
    r = tutorial.judge(1, 0, cards=["6H", "6D"], lang="en")
    assert not r["ok"]
    assert "Rules §3" in r["explanation"]
    assert "single" in r["explanation"]
    # a lower single
    r = tutorial.judge(1, 0, cards=["4S"], lang="en")
    assert not r["ok"]
    assert "higher rank" in r["explanation"]
    # a bomb on a dao pair
    r = tutorial.judge(5, 2, cards=["4S", "4H", "4C", "4D"], lang="en")
    assert not r["ok"]
    assert "dao" in r["explanation"]
    # a shorter bomb with a higher rank
    r = tutorial.judge(2, 2, cards=["KS", "KH", "KC", "KD"], lang="en")
    assert not r["ok"]
    assert "more cards" in r["explanation"]
    # a lower atom by suit
    r = tutorial.judge(3, 1, cards=["8D", "8D", "8D"], lang="en")
    assert not r["ok"]
    assert r["explanation"].endswith(
        "♠ > ♥ > ♣ > ♦: the atom 8♦ is below the atom 8♥.")
    # a joker alone is a 3
    r = tutorial.judge(5, 0, cards=["BJ"], lang="en")
    assert not r["ok"]
    assert "single" in r["explanation"]
    # mixed ranks are no play; cards not held are refused by name
    r = tutorial.judge(1, 0, cards=["9C", "JD"], lang="zh")
    assert not r["ok"]
    assert r["explanation"].startswith("规则 §3")
    r = tutorial.judge(1, 0, cards=["AS"], lang="en")
    assert not r["ok"]
    assert "not all in your hand" in r["explanation"]
    # a legal play the step does not ask for, and a pass on a lead
    r = tutorial.judge(6, 0, cards=["6S", "6D"], lang="en")
    assert not r["ok"]
    assert "Rules §3" in r["explanation"]
    r = tutorial.judge(6, 1, cards=[], lang="en")
    assert not r["ok"]
    assert "Rules §4" in r["explanation"]
    r = tutorial.judge(1, 0, cards=[], lang="en")  # a pass where a play beats
    assert not r["ok"]
    assert "Rules §4: you may pass" in r["explanation"]
    # the learner's right play comes first in what follows, then the bots'
    r = tutorial.judge(1, 0, cards=["9C"], lang="en")
    assert r["ok"]
    assert [(p["seat"], p["cards"]) for p in r["after"]] == [
        (2, ["9C"]), (1, []), (0, []), (3, [])]


def test_a_wrong_play_is_explained_and_changes_nothing(client):
    url = reverse("tutorial_play", args=[1])
    before = client.get(reverse("tutorial_step", args=[1]) + "?step=0").json()
    r = _post(client, url, {"step": 0, "cards": ["6H", "6D"]})
    assert r.status_code == 200
    data = r.json()
    assert data == {"ok": False, "explanation": data["explanation"], "after": [],
                    "next": None, "token": None}
    assert data["explanation"].startswith("规则 §3")
    assert "单张" in data["explanation"]
    r = _post(client, url, {"step": 0, "cards": ["6H", "6D"]}, **EN)
    assert r.json()["explanation"].startswith("Rules §3: a single beats only a single")
    assert client.get(reverse("tutorial_step", args=[1]) + "?step=0").json() == before
    assert not Game.objects.exists()
    assert not Table.objects.exists()
    assert not GameEvent.objects.exists()
    assert not TutorialProgress.objects.exists()


def test_the_step_shows_no_answer():
    for n, les in enumerate(tutorial.LESSONS, start=1):
        for i, step in enumerate(les.steps):
            view = tutorial.step_view(n, i, "en")
            assert set(view) <= {"index", "kind", "prompt", "last", "dao", "hand", "table",
                                 "can_pass", "options"}
            if step.kind == "choice":
                assert all(set(o) == {"id", "text"} for o in view["options"])


def _finish(client, n, **extra):
    les = tutorial.lesson(n)
    step = client.get(reverse("tutorial_step", args=[n]), **extra).json()["step"]
    token = None
    for i in range(len(les.steps)):
        assert step["index"] == i
        r = _post(client, reverse("tutorial_play", args=[n]),
                  {"step": i, **_right(les.steps[i])}, **extra).json()
        assert r["ok"], r
        step, token = r["next"], r["token"]
    assert step is None
    assert token
    return _post(client, reverse("tutorial_complete", args=[n]), {"token": token}, **extra)


def test_a_visitor_finishes_every_lesson_and_nothing_is_stored(client):
    for n in range(1, tutorial.COUNT + 1):
        r = _finish(client, n, **EN)
        assert r.status_code == 200
        assert r.json() == {"lesson": tutorial.lesson(n).code, "saved": False}
    assert not TutorialProgress.objects.exists()
    assert not Game.objects.exists()
    assert not Table.objects.exists()


def test_an_account_finishes_lessons_and_its_progress_is_saved(client, owner):
    client.force_login(owner)
    assert _finish(client, 1).json() == {"lesson": "basics", "saved": True}
    assert _finish(client, 8).json() == {"lesson": "clamp", "saved": True}
    first = TutorialProgress.objects.get(user=owner, lesson="basics").completed_at
    assert _finish(client, 1).json()["saved"] is True  # again: the first time is kept
    assert TutorialProgress.objects.get(user=owner, lesson="basics").completed_at == first
    assert set(TutorialProgress.objects.values_list("lesson", flat=True)) == {"basics", "clamp"}
    step = client.get(reverse("tutorial_step", args=[1])).json()
    assert step["done"] is True
    html = client.get(reverse("tutorial")).content.decode()
    assert html.count("tut-done-mark\" hidden") == tutorial.COUNT - 2


def test_complete_needs_the_lessons_own_token(client, owner):
    client.force_login(owner)
    url = reverse("tutorial_complete", args=[2])
    for body in ({}, {"token": "forged"}, {"token": None}):
        r = _post(client, url, body)
        assert r.status_code == 400
        assert r.json()["error"] == "bad_token"
    les = tutorial.lesson(1)
    token = tutorial.judge(1, len(les.steps) - 1, **_right(les.steps[-1]))["token"]
    r = _post(client, url, {"token": token})  # lesson 1's token on lesson 2
    assert r.status_code == 400
    assert r.json()["error"] == "bad_token"
    assert not TutorialProgress.objects.exists()


def test_bad_requests_get_a_clear_error(client):
    play = reverse("tutorial_play", args=[1])
    assert client.get(reverse("tutorial_step", args=[9])).status_code == 404
    assert client.get(reverse("tutorial_step", args=[0])).status_code == 404
    r = client.get(reverse("tutorial_step", args=[1]) + "?step=99")
    assert r.status_code == 400
    assert r.json()["error"] == "no_step"
    r = client.get(reverse("tutorial_step", args=[1]) + "?step=-1")
    assert r.status_code == 400
    assert r.json()["error"] == "no_step"
    for body, code in (({"step": 0, "cards": "6H"}, "bad_cards"),
                       ({"step": 0, "cards": ["XX"]}, "bad_cards"),
                       ({"step": 0, "cards": ["6H", 6]}, "bad_cards"),
                       ({"step": 3, "choice": 7}, "bad_cards"),
                       ({"step": 3, "choice": True}, "bad_cards"),
                       ({"step": "0", "cards": []}, "no_step")):
        r = _post(client, play, body)
        assert r.status_code == 400, (body, r.content)
        assert r.json()["error"] == code, (body, r.content)
    r = client.post(play, "not json", content_type="application/json")
    assert r.status_code == 400
    assert r.json()["error"] == "bad_request"
    assert client.get(play).status_code == 405
    assert _post(client, reverse("tutorial_play", args=[9]), {"step": 0}).status_code == 404


def test_pages_render_for_a_visitor_in_both_languages(client):
    html = client.get(reverse("tutorial_lesson", args=[5])).content.decode()
    assert "刀和王" in html
    assert 'id="tutorial-strings"' in html
    assert "js/tutorial.js" in html
    html = client.get(reverse("tutorial_lesson", args=[5]), **EN).content.decode()
    assert "The dao and the jokers" in html
    assert client.get(reverse("tutorial_lesson", args=[9])).status_code == 404
    html = client.get(reverse("tutorial")).content.decode()
    assert all(f'href="/tutorial/{n}/"' in html for n in range(1, 9))


def test_the_lobby_offers_the_tutorial_to_visitors_and_new_accounts(client, owner):
    assert 'id="tutorial-offer"' in client.get(reverse("lobby")).content.decode()
    client.force_login(owner)
    assert 'id="tutorial-offer"' in client.get(reverse("lobby")).content.decode()
    TutorialProgress.objects.bulk_create(
        [TutorialProgress(user=owner, lesson=code) for code in tutorial.CODES])
    assert 'id="tutorial-offer"' not in client.get(reverse("lobby")).content.decode()


def test_the_scoring_lessons_numbers_are_the_engines():
    """The points the scoring lesson states are what engine.cards_points counts
    (RULES.md §2), so the lesson cannot teach a wrong sum."""
    trick = tutorial.lesson(7).steps[0]
    points = engine.cards_points([c for bp in trick.before for c in bp.cards])
    assert points == 25
    assert "25" in trick.prompt[0]
    assert "25" in trick.prompt[1]
    check = tutorial.lesson(7).steps[1]
    right = next(o for o in check.options if o.why is None)
    assert right.text[0] == str(engine.cards_points(["5S", "5H", "TC", "KD", "KD"]))
    last = tutorial.lesson(7).steps[2]
    held = engine.cards_points(["KS", "5H", "9C"])
    right = next(o for o in last.options if o.why is None)
    assert str(40 + held) in right.text[0]
    assert str(held) in last.options[1].text[0]


def test_the_lessons_name_each_kind_as_the_table_does():
    # one word for one thing: a lesson's 三连张 is the table's 三连张 (RULES.md §1)
    from django.utils import translation

    from games import ui

    for lang, index in (("zh-hans", 1), ("en", 0)):
        with translation.override(lang):
            labels = ui.table_strings()["kinds"]
        for kind, names in tutorial.KIND_NAMES.items():
            word = names[index].removeprefix("a ").removeprefix("an ").split()[-1].lower()
            label = str(labels[kind]).lower()
            # 对 (the table's label) is 对子 in a sentence; 三张 is not 三连张
            assert word in label or label.split()[0] in word, (lang, kind, word, label)
