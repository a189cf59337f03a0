"""The shop's pages and JSON endpoints: thin, every rule lives in
``shop.purchase``, ``shop.coins``, ``shop.inventory`` and ``shop.items``.

Form posts (buy, check-in, relief) answer with a redirect to ``/shop/`` and a
message, or JSON when the request asks for it (``Accept: application/json``);
the inventory's posts (use, swap, disarm) answer JSON: ``{"ok": true, ...}``
or ``{"ok": false, "reason", "message"}`` with status 400. Anonymous JSON
requests get 401 JSON.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.contrib.messages.storage.base import BaseStorage
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from accounts.models import Profile
from games import wire
from games.ui import seat_names
from shop import coins, inventory, items, purchase, replays
from shop.models import CoinEntry, Item, Replay
from yuanzi_site.http import AuthenticatedHttpRequest
from yuanzi_site.refusals import Refused, refused_json


def _wants_json(request: HttpRequest) -> bool:
    return "application/json" in request.headers.get("Accept", "")


def _unauthorized() -> JsonResponse:
    return JsonResponse({"ok": False, "reason": "login_required",
                         "message": _("Log in first.")}, status=401)



def _done(request: HttpRequest, text: str, **data: Any) -> HttpResponse:
    if _wants_json(request):
        return JsonResponse({"ok": True, "message": text, **data})
    messages.success(request, text)
    return redirect("shop")


def _failed(request: HttpRequest, e: Refused) -> HttpResponse:
    if _wants_json(request):
        return refused_json(e)
    messages.error(request, str(e))
    return redirect("shop")


@never_cache
def shop_page(request: HttpRequest) -> HttpResponse:
    """``/shop/``: every item with its picture, price, effect and how many you
    hold; your balance, inventory, check-in and relief. An item priced above
    your spendable coins has ``short`` (how many coins you lack, coins held by
    a running wager game not counted, RULES.md §12 "Held stake"; its 购买 is
    disabled). Each buy form carries a fresh one-time ``key`` (``buy_key``): the
    same form sent twice buys once (``shop.purchase``); never cached, so going
    back to the page renders new keys."""
    catalogue = list(Item.objects.all())
    context: dict[str, Any] = {"catalogue": catalogue}
    if request.user.is_authenticated:
        profile = Profile.objects.get(user=request.user)
        balance = profile.coins - profile.coins_held
        for item in catalogue:
            item.short = max(0, item.price - balance) if item.for_sale else 0
        slots = inventory.slots_of(request.user.pk)
        held: dict[int, int] = {}
        for s in slots:
            if s.item_id:
                held[s.item_id] = held.get(s.item_id, 0) + s.count
        for item in catalogue:
            item.held = held.get(item.pk, 0)
            item.buy_key = secrets.token_urlsafe(16)
    return render(request, "shop/shop.html", context)


@require_POST
def buy(request: HttpRequest) -> HttpResponse:
    """``POST /shop/buy/``: fields ``item`` (code), ``quantity`` (1–99),
    ``price`` (the unit price shown) and, optional, ``key`` (1–64 characters:
    the page renders a fresh one into each form); see ``shop.purchase.buy``.
    The same key sent again buys nothing and is answered with the first
    purchase's outcome (the same message; JSON ``"repeated": true``), so a
    double click buys once. The answer's ``coins`` is the balance now."""
    if not request.user.is_authenticated:
        return _unauthorized() if _wants_json(request) else redirect("account_login")
    try:
        bought = purchase.buy(request.user, request.POST.get("item"),
                              request.POST.get("quantity"), request.POST.get("price"),
                              key=request.POST.get("key"))
    except Refused as e:
        return _failed(request, e)
    item = Item.objects.filter(code=bought.code).first()
    text = _("Bought %(count)s × %(item)s for %(total)s coins.") % {
        "count": bought.count, "item": item.name if item else bought.code,
        "total": bought.total}
    coins_now = (Profile.objects.filter(user=request.user).values_list("coins", flat=True)
                 .get() if bought.repeated else bought.coins)
    data = {"coins": coins_now, "item": bought.code, "count": bought.count,
            "total": bought.total, "repeated": bought.repeated}
    if bought.repeated and not _wants_json(request) and _queued(request, text):
        return redirect("shop")  # the first post's banner says it already: one banner
    return _done(request, text, **data)


def _queued(request: HttpRequest, text: str) -> bool:
    """Whether a message ``text`` waits to be shown on the next page (left there)."""
    storage = messages.get_messages(request)
    found = any(str(m) == text for m in storage)
    if isinstance(storage, BaseStorage):
        storage.used = False  # looked at, not shown: they stay for the next page
    return found


def _claim(request: HttpRequest, claim: Callable[[User], CoinEntry], said: str) -> HttpResponse:
    """A coin source's POST: ``claim(user)`` → its ledger entry, answered with
    ``said % {"amount": …}`` and the new balance; a refusal changes nothing."""
    if not request.user.is_authenticated:
        return _unauthorized() if _wants_json(request) else redirect("account_login")
    try:
        entry = claim(request.user)
    except Refused as e:
        return _failed(request, e)
    return _done(request, said % {"amount": entry.amount},
                 coins=entry.balance_after, amount=entry.amount)


@require_POST
def check_in(request: HttpRequest) -> HttpResponse:
    """``POST /shop/checkin/``: today's 每日签到 (``shop.coins.check_in``)."""
    return _claim(request, coins.check_in, _("Checked in: +%(amount)s coins."))


@require_POST
def relief(request: HttpRequest) -> HttpResponse:
    """``POST /shop/relief/``: 救济金 (``shop.coins.claim_relief``)."""
    return _claim(request, coins.claim_relief, _("Relief: +%(amount)s coins."))


def _body(request: HttpRequest) -> dict[str, Any]:
    if request.content_type == "application/json":
        try:
            data = wire.loads(request.body or b"{}")
        except ValueError:  # malformed, or nested too deeply: 400, never 500
            data = None
        if not isinstance(data, dict):
            raise Refused("bad_message", _("Malformed message."))
        return data
    form: dict[str, Any] = request.POST.dict()
    for k in ("slot", "a", "b", "game", "table"):
        if k in form:
            form[k] = purchase.whole(form[k]) if purchase.whole(form[k]) is not None else form[k]
    return form


@require_POST
def use(request: HttpRequest) -> JsonResponse:
    """``POST /shop/use/`` (JSON or form): ``slot``, ``item``, ``key`` and,
    per item, ``table``, ``game``, ``name``, ``theme`` (``shop.items.use``)."""
    if not request.user.is_authenticated:
        return _unauthorized()
    try:
        data = _body(request)
        table = data.get("table")
        result = items.use(request.user, data.get("slot"), data.get("item"), data.get("key"),
                           table_id=table if isinstance(table, int) else None,
                           game_id=data.get("game"), name=data.get("name"),
                           theme=data.get("theme"))
    except Refused as e:
        return refused_json(e)
    return JsonResponse({"ok": True, "result": result, **_me_json(request.user)})


@require_POST
def swap(request: HttpRequest) -> JsonResponse:
    """``POST /shop/swap/``: slots ``a`` and ``b`` trade places."""
    if not request.user.is_authenticated:
        return _unauthorized()
    try:
        data = _body(request)
        inventory.swap(request.user, data.get("a"), data.get("b"))
    except Refused as e:
        return refused_json(e)
    return JsonResponse({"ok": True, **_me_json(request.user)})


@require_POST
def disarm(request: HttpRequest) -> JsonResponse:
    """``POST /shop/disarm/``: disarm your 定时器 (it is kept)."""
    if not request.user.is_authenticated:
        return _unauthorized()
    items.disarm_timer(request.user)
    return JsonResponse({"ok": True, **_me_json(request.user)})


@require_GET
def api_shop(request: HttpRequest) -> JsonResponse:
    """``GET /api/shop``: the catalogue, ``{"items": [{code, name_zh, name_en,
    price, stackable, for_sale}]}``."""
    rows = Item.objects.values("code", "name_zh", "name_en", "price", "stackable", "for_sale")
    return JsonResponse({"items": list(rows)})


def _me_json(user: User) -> dict[str, Any]:
    p = Profile.objects.get(user=user)
    return {"username": user.username, "coins": p.coins, "coins_held": p.coins_held,
            "rating_points": p.rating_points,
            "level": p.level, "title": p.title,
            "inventory": inventory.as_json(inventory.slots_of(user.pk))}


@require_GET
def api_me(request: HttpRequest) -> JsonResponse:
    """``GET /api/me``: ``username``, ``coins``, ``coins_held`` (of ``coins``,
    held by a running wager game: not spendable), ``rating_points``, ``level``,
    ``title``, ``inventory`` (``[{slot, item, count, armed}]``); with
    ``?game=<id>`` also ``replay``: ``{"game", "token"}`` when that game is in
    your replays (a 录像机 saved it), else ``null``; 401 JSON for anonymous
    visitors."""
    if not request.user.is_authenticated:
        return _unauthorized()
    me = _me_json(request.user)
    if "game" in request.GET:
        game_id = wire.whole(request.GET["game"])
        token = None if game_id is None else Replay.objects.filter(
            user=request.user, game_id=game_id).values_list("token", flat=True).first()
        me["replay"] = {"game": game_id, "token": token} if token else None
    return JsonResponse(me)


@login_required
def replay_list(request: AuthenticatedHttpRequest) -> HttpResponse:
    """``/replays/``: the games you saved with a 录像机."""
    saved = Replay.objects.filter(user=request.user).select_related("game__table")
    return render(request, "shop/replays.html", {"replays": saved})


def replay_page(request: HttpRequest, token: str) -> HttpResponse:
    """``/replays/<token>/``: a saved replay (anyone with the link), titled
    with the table's name as the game was played: the four seats with their
    hands as card faces, the trick and the scores, stepped through with
    buttons or keys (``static/shop/replay.js``)."""
    saved = get_object_or_404(Replay.objects.select_related("game__table", "user"), token=token)
    if saved.game.record is None:  # never a running game's (RULES.md §12)
        raise Http404
    return render(request, "shop/replay.html", {
        "replay": saved, "frames": replays.frames(saved.game),
        "deals": replays.deals(saved.game), "bottom": replays.bottom_seat(saved.game, saved.user),
        "names": replays.names(saved.game), "seats": seat_names(),
        "strings": replays.strings()})


def replay_record(request: HttpRequest, token: str) -> JsonResponse:
    """``/replays/<token>/record.json``: the game's RULES.md §11 record, as a download."""
    saved = get_object_or_404(Replay.objects.select_related("game"), token=token)
    if saved.game.record is None:
        raise Http404
    response = JsonResponse(saved.game.record, json_dumps_params={"ensure_ascii": False})
    response["Content-Disposition"] = f'attachment; filename="yuanzi-game-{saved.game_id}.json"'
    return response

