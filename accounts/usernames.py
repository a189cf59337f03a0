"""What a username may be, beyond Django's validator (sign-up, through
``moderation.adapter``): no invisible characters, and one spelling per name.

- Full-width and other compatibility forms are folded by Unicode NFKC before
  anything else, so full-width ``ABC`` (U+FF21 …) signs up as ``ABC`` and cannot sit beside it.
- Control, format, private-use, unassigned and separator characters, and the
  "default ignorable" fillers that Python counts as letters (Hangul fillers
  U+3164, U+FFA0 …), are refused: two names that look the same must be the same.
- A letter of another script that looks like a letter of the scripts a name
  here is written in (Latin, Chinese, Japanese kana, Korean, digits and
  punctuation: :data:`SCRIPTS`), such as Cyrillic U+0430 for ``a`` in ``alice``, is
  refused (``confusable_homoglyphs``, Unicode's confusables): a name must
  not pass for another player's.
- A name has at least one letter or digit: one of punctuation only, ``..``
  above all, is no path segment of a profile's address (a browser reads
  ``/accounts/profile/../`` as ``/accounts/``).
- Names that would pass for the site's own (``管理员``, ``moderator`` …) are
  reserved by ``ACCOUNT_USERNAME_BLACKLIST`` (allauth, settings).
- New names are at most :data:`MAX_LENGTH` characters (after folding), so a
  name fits a lobby card and a seat; older, longer names stay.
- The anonymised names of deleted accounts (``已注销用户 N``,
  ``accounts.deletion``) are reserved.

Pure Python; errors are :class:`django.forms.ValidationError` with a
translated message.
"""

from __future__ import annotations

import re
import unicodedata

from confusable_homoglyphs import confusables
from django import forms
from django.utils.translation import gettext as _

#: the longest new username, in characters (the column allows 150)
MAX_LENGTH = 20

#: the scripts (Unicode aliases) whose letters a name may use freely; a letter
#: of any other script that looks like one of theirs is refused
SCRIPTS = ["LATIN", "HAN", "COMMON", "HIRAGANA", "KATAKANA", "HANGUL"]

#: the prefix of deleted accounts' names (``accounts.deletion.DELETED_PREFIX``)
RESERVED_PREFIX = "已注销用户"

#: the prefix of house accounts, user rows that are no person (an arena's
#: pool, ``contests.arena``): no name a person signs up with has it (``#`` is
#: no username character), and they have no profile, nor a moderator's page
HOUSE_PREFIX = "#"


def is_house(username: str) -> bool:
    """``username`` names a house account (:data:`HOUSE_PREFIX`), not a person.

    >>> is_house("#arena-41ebcad97aee"), is_house("alice")
    (True, False)
    """
    return username.startswith(HOUSE_PREFIX)

#: Unicode categories never allowed: controls, format (zero-width, bidi),
#: surrogates, private use, unassigned, separators (spaces, line/paragraph)
_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zs", "Zl", "Zp"})

#: invisible code points outside those categories (Unicode's
#: Default_Ignorable_Code_Point and blank-looking letters or symbols)
_INVISIBLE = frozenset([
    0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x2800, 0x3164, 0xFFA0,
    *range(0x180B, 0x1810), *range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0),
    *range(0x1D173, 0x1D17B)])


#: what Django's UnicodeUsernameValidator allows: letters and digits of any
#: script, and @ . + - _
_ALLOWED = re.compile(r"[\w.@+-]+")
_LETTER_OR_DIGIT = re.compile(r"[^\W_]")


def invisible(ch: str) -> bool:
    """``ch`` shows nothing (or nothing of its own) on screen.

    >>> invisible("\\u200b"), invisible("\\u3164"), invisible("a"), invisible("原")
    (True, True, False, False)
    """
    return ord(ch) in _INVISIBLE or unicodedata.category(ch) in _REFUSED_CATEGORIES


def normalise(username: str) -> str:
    """``username`` folded by NFKC (full-width → ASCII, ``ﬁ`` → ``fi`` …).

    >>> normalise("\\uff21\\uff22\\uff23\\uff11\\uff12\\uff13")
    'ABC123'
    """
    return unicodedata.normalize("NFKC", username)


def clean(username: str) -> str:
    """The username to store: :func:`normalise` d, then checked.

    :raises forms.ValidationError: an invisible, control or format character
        (:func:`invisible`); more than :data:`MAX_LENGTH` characters; a
        character other than a letter, a digit or ``@.+-_``; none of a letter
        or a digit (``..``); a look-alike
        letter of another script; the reserved prefix of deleted accounts.
    """
    name = normalise(username)
    if len(name) > MAX_LENGTH:
        raise forms.ValidationError(
            _("A username has at most %(n)d characters.") % {"n": MAX_LENGTH})
    if any(invisible(ch) for ch in name):
        raise forms.ValidationError(
            _("A username cannot contain spaces or invisible characters."))
    if not _ALLOWED.fullmatch(name):
        # Django's validator says "letters", which read as Latin letters only
        raise forms.ValidationError(_(
            "A username may contain only letters (Chinese too), digits and @ . + - _."))
    if not _LETTER_OR_DIGIT.search(name):
        raise forms.ValidationError(_("A username needs at least one letter or digit."))
    if confusables.is_confusable(name, preferred_aliases=SCRIPTS):
        raise forms.ValidationError(_(
            "A username cannot use letters of another script that look like Latin or "
            "Chinese ones (such as a Cyrillic or Greek letter that looks like a or o): "
            "it could pass for another player's name."))
    if name.startswith(RESERVED_PREFIX):
        raise forms.ValidationError(_("That username is reserved."))
    return name
