"""The 新手教程: every scripted deal is valid under the real engine
and its wanted play is legal; the API judges plays with the engine, explains a
wrong one (in Chinese by default, in English) and changes nothing; every lesson
can be finished through the API; an account's progress is stored, a visitor's
is not; no table, game or record is touched."""

from __future__ import annotations

import itertools
import json
import re
from collections import Counter

import pytest
from django.urls import reverse

from games import engine, explain, tutorial
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
    r = tutorial.judge(2, 0, cards=["JS", "JH", "JC", "JD"], lang="en")
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
    r = tutorial.judge(1, 0, cards=["6C", "KD"], lang="zh")
    assert not r["ok"]
    assert r["explanation"].startswith("规则 §3")
    r = tutorial.judge(1, 0, cards=["2S"], lang="en")
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
    r = tutorial.judge(1, 0, cards=["AS"], lang="en")
    assert r["ok"]
    assert [(p["seat"], p["cards"]) for p in r["after"]] == [
        (2, ["AS"]), (1, []), (0, []), (3, [])]


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


# --- the tester's defects (each test fails on the code before its fix) ---------------

NEW_HAND = ("A new hand", "新的一手牌")


def _accepted(step: tutorial.Step) -> list[Counter]:
    """Every answer (as a multiset of cards) the step judges right: all the
    sub-multisets of the hand that make a play beating the table's and meeting
    what the step asks (not only one representative per play as legal_plays
    gives: which 9 of three is played matters to the next hand)."""
    table = tutorial.table_play(step)
    if step.want.get("pass"):
        return [Counter()]
    held = sorted(Counter(step.hand).items())
    out = []
    for counts in itertools.product(*(range(c + 1) for _, c in held)):
        cards = [card for (card, _), k in zip(held, counts, strict=True) for _ in range(k)]
        if not cards:
            continue
        play = engine.classify(cards, step.dao)
        if play is None or (table is not None and not engine.beats(play, table)):
            continue
        if tutorial._meets(step, play):
            out.append(Counter(cards))
    return out


@pytest.mark.parametrize("n", range(1, tutorial.COUNT + 1))
def test_the_hand_goes_on_from_step_to_step(n):
    """Each play step's hand is the previous play step's hand less the cards its
    right answer played (whichever right answer), or the step says it deals a
    new hand, in both languages."""
    plays = [s for s in tutorial.lesson(n).steps if s.kind == "play"]
    for before, after in itertools.pairwise(plays):
        if NEW_HAND[0] in after.prompt[0]:
            assert NEW_HAND[1] in after.prompt[1]
            continue
        answers = _accepted(before)
        assert answers, before
        for played in answers:
            assert Counter(before.hand) - played == Counter(after.hand), (
                f"lesson {n}: {before.hand} less {sorted(played.elements())} "
                f"is not the next step's {after.hand}")


def _sync(client, body, **extra):
    return _post(client, reverse("tutorial_sync"), body, **extra)


def test_lessons_finished_in_the_browser_are_added_to_the_account(client, owner):
    """A logged-in page posts the lessons its browser holds (finished logged
    out): they are stored, so the index and the lobby's offer agree."""
    TutorialProgress.objects.create(user=owner, lesson="atoms")
    client.force_login(owner)
    r = _sync(client, {"lessons": [1, 2, 3]})
    assert r.status_code == 200
    assert r.json() == {"saved": ["basics", "bombs"], "done": ["basics", "bombs", "atoms"]}
    assert _sync(client, {"lessons": [2]}).json()["saved"] == []  # again: nothing new
    assert set(TutorialProgress.objects.filter(user=owner).values_list("lesson", flat=True)) \
        == {"basics", "bombs", "atoms"}
    html = client.get(reverse("tutorial")).content.decode()
    assert html.count("tut-done-mark\" hidden") == tutorial.COUNT - 3
    offer = client.get(reverse("lobby")).content.decode()
    assert '<span class="badge">3/8</span>' in offer


def test_the_sync_takes_only_real_lesson_numbers(client, owner):
    client.force_login(owner)
    for body in ({"lessons": [0]}, {"lessons": [9]}, {"lessons": [-1]}, {"lessons": ["1"]},
                 {"lessons": [True]}, {"lessons": [1.0]}, {"lessons": "1"}, {"lessons": None},
                 {}, {"lessons": [1] * 9}, {"lessons": ["basics"]}):
        r = _sync(client, body)
        assert r.status_code == 400, body
        assert r.json()["error"] == "bad_request"
    r = client.post(reverse("tutorial_sync"), "[1]", content_type="application/json")
    assert r.status_code == 400
    assert client.get(reverse("tutorial_sync")).status_code == 405
    assert not TutorialProgress.objects.exists()


def test_the_sync_needs_an_account_and_the_csrf_token(client, owner):
    from django.test import Client

    r = _sync(client, {"lessons": [1]})  # a visitor: the browser keeps it
    assert r.status_code == 403
    assert r.json()["error"] == "login_required"
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(owner)
    assert _sync(strict, {"lessons": [1]}).status_code == 403
    assert not TutorialProgress.objects.exists()
    page = strict.get(reverse("tutorial")).content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)[1]
    assert _sync(strict, {"lessons": [1]}, HTTP_X_CSRFTOKEN=token).status_code == 200
    assert TutorialProgress.objects.filter(user=owner, lesson="basics").exists()


def _zh_texts():
    """Every Chinese text of the lessons, where it is."""
    for n, les in enumerate(tutorial.LESSONS, start=1):
        yield f"{n} title", les.title[1]
        yield f"{n} intro", les.intro[1]
        for i, s in enumerate(les.steps):
            for name, text in (("prompt", s.prompt), ("done", s.done), ("off_goal", s.off_goal)):
                if text:
                    yield f"{n}.{i} {name}", text[1]
            for bp in (*s.before, *s.after):
                if bp.note:
                    yield f"{n}.{i} note", bp.note[1]
            for j, o in enumerate(s.options):
                yield f"{n}.{i}.{j} option", o.text[1]
                if o.why:
                    yield f"{n}.{i}.{j} why", o.why[1]


def test_the_lessons_say_half_and_game_as_the_site_does():
    """RULES.md §6: a game (一局) is up to two halves (上半局 / 下半局); the lessons
    never call a half 局 (第一局, 两局, 本局) nor a game 盘."""
    for where, text in _zh_texts():
        rest = text.replace("半局", "").replace("平局", "").replace("一局", "")
        assert "局" not in rest, (where, text)
        assert "盘" not in text, (where, text)
    assert "每个半局共 300 分" in tutorial.lesson(7).intro[1]
    assert "300 points in a half" in tutorial.lesson(7).intro[0]
    clamp = tutorial.lesson(8).intro[1]
    assert "一局最多两个半局" in clamp
    assert "上半局" in clamp
    assert "下半局" in clamp


def test_the_bombs_lesson_names_the_dao_exception_and_the_dao_is_explained_before_lesson_5():
    """RULES.md §3: a bomb beats no single, pair or triple of the dao."""
    en, zh = tutorial.lesson(2).intro
    assert "except the dao's (lesson 5)" in en
    assert "刀的除外（第 5 课）" in zh
    assert tutorial.lesson(5).code == "dao"
    for n in range(1, 5):
        for lang, words in (("zh", ("刀", "第 5 课")), ("en", ("dao", "lesson 5"))):
            note = tutorial.lesson_summary(n, lang)["dao_note"]
            assert all(w in note for w in words), (n, note)
    assert all(tutorial.lesson_summary(n, "zh")["dao_note"] == "" for n in range(5, 9))


def test_the_dao_note_is_on_the_page(client):
    html = client.get(reverse("tutorial_lesson", args=[1])).content.decode()
    assert 'id="tut-dao-note"' in html
    assert "第 5 课会讲" in html
    assert 'id="tut-dao-note"' not in client.get(
        reverse("tutorial_lesson", args=[5])).content.decode()


_BAD_SPACE = re.compile(
    "[ ](?=[\u3000-\u303f\uff00-\uffef])|(?<=[\u3000-\u303f\uff00-\uffef])[ ]"
    "|(?<=[\u4e00-\u9fff])[ ](?=[\u4e00-\u9fff])")


def test_chinese_text_has_no_stray_spaces():
    """No space between Chinese words or beside Chinese punctuation, in the
    lessons and in every explanation of a wrong play."""
    for where, text in _zh_texts():
        assert not _BAD_SPACE.search(tutorial.say(("", text), "zh")), (where, text)
    for n, i, step in _play_steps():
        for play in engine.legal_plays(step.hand, None, step.dao):
            r = tutorial.judge(n, i, cards=list(play.cards), lang="zh")
            assert not _BAD_SPACE.search(r["explanation"]), (n, i, r["explanation"])
    # the tester's two sentences
    assert tutorial.judge(1, 0, cards=["4S"], lang="zh")["explanation"].endswith(
        "单张 4 不比单张 K 大。")
    assert tutorial.judge(5, 1, cards=["BJ"], lang="zh")["explanation"].endswith(
        "单张（王，当 3）不行。")


def test_the_sign_up_page_ends_with_a_chinese_full_stop(client):
    html = client.get(reverse("account_signup")).content.decode()
    assert "登录</a>。" in html
    assert "登录</a>." not in html


def test_the_jiefeng_check_does_not_give_its_answer_away():
    check = tutorial.lesson(6).steps[-1]
    for option in check.options:
        for word in ("下家", "对家"):
            assert word not in option.text[1], option
        for word in ("next seat", "partner"):
            assert word not in option.text[0], option
    assert [o.text for o in check.options] == [("South", "南家"), ("West", "西家"),
                                               ("East", "东家")]


def test_the_last_lesson_leads_to_a_game_with_bots(client, owner):
    html = client.get(reverse("tutorial_lesson", args=[8])).content.decode()
    assert 'id="tut-practice"' in html
    assert f'href="{reverse("account_signup")}?next=/"' in html  # a visitor signs up first
    assert 'id="tut-practice"' not in client.get(
        reverse("tutorial_lesson", args=[7])).content.decode()
    client.force_login(owner)
    html = client.get(reverse("tutorial_lesson", args=[8])).content.decode()
    assert f'<form method="post" action="{reverse("practice")}">' in html
    assert "和机器人练习" in html


def test_a_triple_is_called_三连张_in_every_chinese_text():
    """RULES.md §1's term, as the table labels it: never 三张 5 in a prompt and
    三连张 5 on the cards (a tester saw both in lesson 1). 三张 8♦ (three copies
    of one card: an atom) stays a count."""
    import re

    loose = re.compile(r"三张 ?(10|[2-9JQKA])(?![0-9♠♥♣♦])")
    assert not loose.findall(repr(tutorial.LESSONS))
    triple = engine.classify(["5C", "5C", "5D"], "2")
    assert triple is not None
    assert "三连张" in explain.play_text(triple, "zh-hans")


def test_one_seat_per_person_a_lesson_while_playing_is_refused_and_a_waiting_seat_left(
        client, django_capture_on_commit_callbacks):
    """RULES.md §12: while an account plays a running game its lesson page
    says so with the way back and a play is refused (nothing judged, nothing
    stored); a waiting seat is left with the first play, the table told why."""
    from games import events, tables
    from tests.helpers import listening, make_players, start_game

    four = make_players(4, "tut")
    game = start_game(four)
    client.force_login(four[0])
    page = client.get(reverse("tutorial_lesson", args=[1])).content.decode()
    assert 'id="tut-busy"' in page
    assert f'href="/tables/{game.table_id}/"' in page
    assert 'data-lesson=""' in page  # the lesson's script does not start
    step = _right(tutorial.LESSONS[0].steps[0])
    r = _post(client, reverse("tutorial_play", args=[1]), {"step": 0, **step})
    assert r.status_code == 400
    assert (r.json()["reason"], r.json()["params"]) == ("seated_elsewhere",
                                                        {"table_id": game.table_id})
    # a waiting seat: the lesson's page is the lesson, and a play leaves the seat
    (waiting,) = make_players(1, "tutwait")
    table = tables.create_table(waiting)
    tables.sit(table.pk, waiting, 1)
    client.force_login(waiting)
    assert 'id="tut-busy"' not in client.get(reverse("tutorial_lesson", args=[1])).content.decode()
    with listening(events.Notice) as told, django_capture_on_commit_callbacks(execute=True):
        r = _post(client, reverse("tutorial_play", args=[1]), {"step": 0, **step})
    assert r.json()["ok"] is True
    assert not table.seats.filter(user=waiting).exists()
    assert [(n.user_id, n.notice["code"]) for n in told] == [(waiting.pk, "tutorial_left_seat")]
