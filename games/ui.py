"""Translated strings for the browser scripts (the result page's sentences are
:mod:`games.results`).

The page scripts (the ES modules of ``static/js/``, through ``i18n.js``) get their
words from a JSON blob the template embeds with ``json_script``: every string
here goes through gettext, so ``makemessages`` finds it and the page speaks the
visitor's language. Placeholders use Python's ``%(name)s`` form; the scripts
fill them in.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from django.templatetags.static import static
from django.utils.html import escape
from django.utils.safestring import mark_safe
from django.utils.translation import get_language, ngettext, ngettext_lazy, pgettext
from django.utils.translation import gettext as _

from accounts.models import avatar_urls
from games.engine import BOT_POLICIES

# Django 5.2.x's MinimumLengthValidator (the sign-up and password-change forms)
# asks for "…at least %d characters.", but Django's own zh_Hans catalog still
# has the older "%(min_length)d" msgid, so the message came out in English on
# the Chinese pages. Our catalog (LOCALE_PATHS, looked up first) carries the
# translation; this reference keeps `makemessages` from dropping it.
DJANGO_MSGIDS = (
    ngettext_lazy(
        "This password is too short. It must contain at least %d character.",
        "This password is too short. It must contain at least %d characters.",
        8,
    ),
)


#: emoji the site draws with its own icons (static/icons/), never a colour-emoji
#: font, which many machines lack (empty boxes): the reactions of the quick
#: phrases (settings.GAMES_REACTIONS) and the 定时器's ⏱
EMOJI_ICONS = {"👍": "thumbs_up", "😄": "smile", "😮": "surprised", "😭": "crying",
               "🎉": "party", "⏱️": "timer", "⏱": "timer"}


def emoji_icons() -> dict[str, str]:
    """``{emoji: icon URL}`` for :data:`EMOJI_ICONS` (static/js/emoji.js)."""
    return {e: static(f"icons/{name}.svg") for e, name in EMOJI_ICONS.items()}


def with_icons(text: str) -> str:
    """``text`` HTML-escaped, each emoji of :data:`EMOJI_ICONS` as its icon
    (the markup of static/js/emoji.js): safe HTML for server-rendered pages."""
    icons = emoji_icons()
    keys = sorted(icons, key=len, reverse=True)
    parts = re.split("(" + "|".join(map(re.escape, keys)) + ")", str(text))
    return mark_safe("".join(
        f'<span class="emoji"><img class="emoji-img" src="{escape(icons[p])}" alt="" '
        f'aria-hidden="true"><span class="visually-hidden">{p}</span></span>'
        if i % 2 else escape(p) for i, p in enumerate(parts)))


def plural_forms(singular: str, plural: str) -> dict[str, str]:
    """A count's words for the scripts: ``{"one", "other"}`` through ngettext
    (fmt() in static/js/i18n.js picks by ``n``; both are one form in Chinese)."""
    return {"one": ngettext(singular, plural, 1), "other": ngettext(singular, plural, 2)}


def lang() -> str:
    """``"zh"`` or ``"en"``: the language the page speaks."""
    return "zh" if (get_language() or "zh-hans").startswith("zh") else "en"


def seat_names() -> list[str]:
    """Compass names of seats 0–3 (RULES.md §2: N, E, S, W)."""
    return [pgettext("seat", "North"), pgettext("seat", "East"),
            pgettext("seat", "South"), pgettext("seat", "West")]


def places() -> list[str]:
    """上游 / 二游 / 三游: the 1st, 2nd, 3rd player out."""
    return [_("1st out"), _("2nd out"), _("3rd out")]


def lobby_strings() -> dict[str, Any]:
    """Words lobby.js needs."""
    return {
        "lang": lang(),
        "waiting": _("Waiting"),
        "playing": _("Playing"),
        "empty_seat": _("Empty"),
        "bot": _("Bot"),
        "spectators": _("%(n)s watching"),
        "owner": _("Owner: %(name)s"),
        "avatars": avatar_urls(),
        "open": _("Open"),
        "no_tables": _("No tables yet. Open one!"),
        "ready": _("Ready"),
        "seat_names": seat_names(),
        "conn_connecting": _("Connecting…"),
        "conn_open": _("Live"),
        "conn_closed": _("Disconnected, reconnecting…"),
        "conn_busy": _("Server busy, trying again soon…"),
        "conn_signed_out": _("You have been signed out."),
    }


def bot_level_names() -> dict[str, str]:
    """Each bot level's name in the visitor's language: 新手 / 普通 / 高手 / 大师
    (``heuristic`` is the normal bot's older code, found in old records)."""
    return {"beginner": _("Beginner"), "normal": _("Normal"), "heuristic": _("Normal"),
            "expert": _("Expert"), "master": _("Master")}


def bot_name(level: str) -> str:
    """A bot's name where a username would stand: 机器人（大师）; an unknown
    policy by its code."""
    return _("Bot (%(level)s)") % {"level": bot_level_names().get(level, level)}


def table_strings() -> dict[str, Any]:
    """Words the table page's modules need (the ``T.*`` names in static/js)."""
    return {
        "lang": lang(),
        "seat_names": seat_names(),
        "places": places(),
        "kinds": {
            "single": _("Single %(rank)s"),
            "pair": _("Pair of %(ranks)s"),
            "triple": _("Triple %(rank)s"),
            "bomb": _("%(n)s-card bomb of %(ranks)s"),
            "atom": _("Atom %(rank)s"),
            "hydrogen": _("Hydrogen bomb of %(ranks)s"),
        },
        # "a pair of 10s": the rank as the name of several cards
        "rank_plural": pgettext("several cards of a rank: 10s, Ks", "%(rank)ss"),
        "big_joker": _("Big joker"),
        "small_joker": _("Small joker"),
        "big_joker_short": pgettext("card corner, big joker", "BIG"),
        "small_joker_short": pgettext("card corner, small joker", "SMALL"),
        "jokers": _("jokers"),
        "bot": _("Bot"),
        "bot_seat": _("Bot (%(seat)s)"),
        "auto_badge": _("Auto-play"),
        "ready_badge": _("Ready"),
        "empty_seat": _("Empty seat"),
        "online": _("online"),
        "offline": _("offline"),
        "sit": _("Sit here"),
        "add_bot": _("Add bot"),
        "remove_bot": _("Remove bot"),
        "bot_level": _("Bot level"),
        "bot_levels": bot_level_names(),
        "bot_choices": list(BOT_POLICIES),
        "ready": _("Ready"),
        "unready": _("Cancel ready"),
        "next_game": _("Ready for the next game"),
        "choose_seat": _("Choose an empty seat to play, or just watch."),
        "login_to_play": _("Log in to take a seat."),
        "waiting_for": _(
            "%(seated)s of 4 seated, %(ready)s ready. The game starts when all four are ready."
        ),
        "watching": _("You are watching this game."),
        "spectators": _("%(n)s watching"),
        "first_half": _("First half"),
        "second_half": _("Second half"),
        "dealt_to": _("dealt to %(name)s"),
        "dao_is": _("dao %(rank)s"),
        "first_half_points": _("1st half: %(points)s"),
        # an ended game's strip: each half, and the total in bold
        "second_half_points": _("2nd half: %(points)s"),
        "game_over": _("Game over"),
        "trick_points": _("%(points)s points on the table"),
        "stake": _("Stake %(stake)s"),
        "stake_doubled": _("Stake %(stake)s (doubled by the double clamp)"),
        "practice_short": _("Practice"),
        "cards_left": plural_forms("%(n)s card", "%(n)s cards"),
        "hand_count": plural_forms("%(n)s card in hand", "%(n)s cards in hand"),
        "pass_mark": _("Pass"),
        "leads": _("%(name)s leads"),
        "your_turn": _("Your turn"),
        "auto_turn": _("Your turn: auto-play is playing for you"),
        "waiting_turn": _("Waiting for %(name)s"),
        "seconds_left": _("%(s)s s left"),
        "select_cards": _("Select cards to play."),
        "nothing_beats": _("Nothing in your hand beats this: pass."),
        "select_one_more": _("Select one more card of this rank"),
        "select_group": _("Select all cards of this rank"),
        "cannot_play": _("These cards cannot be played now"),
        "auto_on": _("Auto-play"),
        "auto_off": _("Cancel auto-play"),
        "auto_by_timeout": _(
            "Two turns in a row ran out of time, so auto-play is on for you. "
            "Click “Cancel auto-play” to play yourself again."
        ),
        "back_to_game": _("Back to your game"),
        "stood_up": _(
            "You have left your seat: a player whose connection is lost, or who "
            "leaves a game, is stood up. Click an empty seat to sit down again."
        ),
        # leaving a practice game is not an escape (RULES.md §7: no penalty)
        "stood_up_practice": _(
            "You have left your seat: a player who leaves a practice game, or whose "
            "connection is lost, is stood up (no penalty). Click an empty seat to sit "
            "down again."
        ),
        # a page opened after its player left their seat cannot tell why
        "not_seated": _("You are not seated at this table now. Click an empty seat to "
                        "sit down."),
        "no_watching": _("This table does not allow spectators: you can sit down when "
                         "the game ends."),
        "us": _("Us"),
        "them": _("Them"),
        "team_ns": _("North–South"),
        "team_ew": _("East–West"),
        "your_team": _("your team"),
        "other_team": _("the other team"),
        "you_win": _("You win!"),
        "you_lose": _("You lose"),
        "team_wins": _("%(team)s win"),
        "double_clamp": _("Double clamp"),
        "abandoned": _("Game abandoned"),
        **why_strings(),
        "total": _("Total"),
        "end_a": _("one team went out"),
        "end_b": _("three players went out"),
        "transfer_captured": _("%(name)s hands %(points)s captured points to %(team)s"),
        "transfer_hand": _("%(points)s points left in %(name)s's hand go to %(team)s"),
        "practice_game": _("Practice game (no rating points)."),
        "stake_line": plural_forms("Stake: %(stake)s rating point",
                                   "Stake: %(stake)s rating points"),
        "rating_delta": plural_forms("%(delta)s rating point", "%(delta)s rating points"),
        "level_up": _("promoted to %(title)s"),
        "level_down": _("down to %(title)s"),
        "cards_left_over": _("Cards left in hand"),
        "escape_rated": _(
            "Leave this game? It will be abandoned and you lose %(points)s rating points."
        ),
        "escape_practice": _("Leave this practice game? It will be abandoned (no penalty)."),
        "leave_rated": _("Leave game"),
        "leave_practice": pgettext("leave a practice game", "Leave"),
        "leave_title_rated": _("Leave the game?"),
        "leave_title_practice": _("Leave the practice game?"),
        "chat_too_long": _("A chat message has at most 200 characters."),
        "not_connected": _("Not connected. Reconnecting…"),
        "error": _("Something went wrong."),
        "conn_connecting": _("Connecting…"),
        "conn_open": _("Connected"),
        "conn_closed": _("Disconnected, reconnecting…"),
        "conn_busy": _("Server busy"),
        "conn_busy_retry_in": _("The server is busy: trying again in %(s)s s…"),
        "conn_gone": _("This table is closed."),
        # the status chip beside the banner that says it in full
        "conn_chip_gone": pgettext("table status", "Closed"),
        "conn_signed_out": _("You have been signed out."),
        "moderator_badge": _("Moderator"),
        "anonymous_watchers": _("and %(n)s watching without an account"),
        "nobody_watching": _("Nobody is watching."),
        "sound_on": _("Sound on"),
        "sound_off": _("Sound off"),
        "beijing_time": _("Beijing time (Asia/Shanghai)"),
        "prev_trick_winner": _("%(name)s took this trick."),
        "conn_retry_in": _("Reconnecting in %(s)s s…"),
        "conn_retrying": _("Reconnecting…"),
        "conn_back": _("Reconnected: the table is up to date again."),
        "emoji_icons": emoji_icons(),
        "avatars": avatar_urls(),
        **notice_strings(),
    }


def why_strings() -> dict[str, Any]:
    """The result's sentences (static/js/result_why.js; RULES.md §6–§7, §12)."""
    return {
        "why_escape": _("%(name)s left the game and loses %(points)s rating points; "
                        "the other three keep theirs."),
        "why_escape_practice": _("%(name)s left the practice game (no penalty)."),
        "why_moderator_close": _("A moderator closed the table, which ended the game."),
        "why_moderator_kick": _("A moderator removed %(name)s from the game, which ended it."),
        "why_suspension": _("%(name)s's account was suspended, which ended the game."),
        "why_no_change": _("Nobody's rating points changed."),
        "why_clamp_out": _("Double clamp: both players of %(team)s went out first in the "
                           "first half, so the game ends after one half."),
        "why_clamp_under": _("Double clamp: %(team)s scored %(points)s in the first half, "
                             "under 60, so %(winner)s win after one half."),
        "why_two_halves": _(
            "After two halves the totals are %(us)s %(a)s, %(them)s %(b)s. "
            "%(name)s went out first in the first half, so %(us)s needed 300 "
            "and %(them)s 305: %(winner)s win."
        ),
        "why_stake": plural_forms("The stake is %(stake)s rating point: each winner gains "
                                  "it, each loser loses it.",
                                  "The stake is %(stake)s rating points: each winner gains "
                                  "it, each loser loses it."),
        "why_stake_doubled": _("The stake of %(base)s is doubled by the double clamp to "
                               "%(stake)s rating points: each winner gains it, each loser "
                               "loses it."),
    }


def notice_strings() -> dict[str, Any]:
    """Words for ``notice`` frames the page words itself (notices.js), by code."""
    return {
        "timeout_played": _(
            "Your time ran out: the clock played %(cards)s for you. "
            "If the next turn runs out too, auto-play starts."
        ),
        "timeout_passed": _(
            "Your time ran out: the clock passed for you. "
            "If the next turn runs out too, auto-play starts."
        ),
        # coins received during or at the end of a game: notice_<code>,
        # filled from the notice's params in the reader's language
        "notice_timer_paid": _("%(name)s's timer fired: you receive %(coins)s coins."),
        "notice_wager_won": _("The wager is settled: you win %(coins)s coins."),
        "notice_escape_paid": _("%(name)s left the game: you receive %(coins)s coins."),
        # social: a friend came online; a table invite's buttons (me.js)
        "notice_friend_online": _("Your friend %(name)s is online."),
        "invite_join": _("Join"),
        "invite_decline": _("Decline"),
        "invite_failed": _("That did not work. Check your connection and try again."),
        "invite_expired": _("This invite has expired."),
    }


def personal_strings() -> dict[str, Any]:
    """Words of the header's live figures and of the per-user channel's
    notices on every page (static/js/me.js; base.html, for a logged-in user)."""
    return {
        "lang": lang(),
        "me_coins": _("%(coins)s coins"),
        "me_held": _("%(coins)s held"),
        "me_level": _("Level %(level)s · %(title)s"),
        **notice_strings(),
    }


def tutorial_strings() -> dict[str, Any]:
    """Words static/js/tutorial.js needs: the table's card and play names and a
    few of its own (the lessons' text comes from ``games.tutorial`` through the
    API, in the page's language)."""
    return {
        **table_strings(),
        "step_of": _("Step %(n)s of %(total)s"),
        "you_lead": _("You lead: nothing to beat."),
        "saved_account": _("Saved to your account."),
        "saved_browser": _("Saved in this browser. Log in to keep your progress."),
        "error": _("Something went wrong. Try again."),
    }


def player_names(players: Sequence[Mapping[str, Any]]) -> list[str]:
    """Each seat's name as pages show it: the username, or "Bot (North)"."""
    return [_("Bot (%(seat)s)") % {"seat": seat_names()[i]} if p["bot"] else p["username"]
            for i, p in enumerate(players)]


def review_strings() -> dict[str, Any]:
    """Words static/js/review.js needs (复盘): the table's card and play names,
    the labels and the step-through's own."""
    return {
        **table_strings(),
        "label_good": _("Good"),
        "label_inexact": _("Inexact"),
        "label_mistake": _("Mistake"),
        "label_blunder": _("Blunder"),
        "review_step": _("Move %(n)s of %(total)s"),
        "review_half_1": _("First half"),
        "review_half_2": _("Second half"),
        "review_dao": _("dao %(rank)s"),
        "review_plays": _("%(name)s plays"),
        "review_passes": _("%(name)s passes"),
        "review_escapes": _("%(name)s leaves the game"),
        "review_by_clock": _("(the clock, not you)"),
        "review_by_auto": _("(auto-play, not you)"),
        "review_your_hand": _("Your hand"),
        "review_on_table": _("On the table"),
        "review_empty_table": _("Nothing on the table: a lead."),
        "review_team_points": _("Points this half: your team %(us)s · theirs %(them)s"),
        "review_half_end": _("The half is over: your team %(us)s · theirs %(them)s "
                             "(with the last player's cards and the transfers)"),
        "review_won": _("Your team won the game."),
        "review_lost": _("Your team lost the game."),
        "review_made": _("You played"),
        "review_best": _("Better"),
        "review_pass": _("Pass"),
        "review_points": _("%(points)s expected points"),
        "review_loss": _("About %(gap)s points lost (clearly at least %(loss)s)"),
        "review_no_better": _("No play was clearly better."),
        "review_queued": _("Queued: number %(n)s in line."),
        "review_running": _("Judging your decisions: %(done)s of %(total)s."),
        "review_starting": _("Starting…"),
        "review_offline": _("No answer from the site; trying again…"),
    }
