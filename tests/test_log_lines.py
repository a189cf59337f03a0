"""One structured line per request and per websocket message (yuanzi_site/logs.py):
JSON objects with the request or connection id, user, table, outcome and
duration; the response echoes its ``X-Request-ID``."""

from __future__ import annotations

import json
import logging

import pytest
from channels.db import database_sync_to_async
from django.urls import reverse

from games import tables
from tests.test_robustness import _open


def _lines(caplog, logger: str) -> list[dict]:
    return [json.loads(r.getMessage()) for r in caplog.records if r.name == logger]


@pytest.mark.django_db
def test_a_request_is_one_line_with_its_id_user_status_and_duration(client, owner, caplog):
    caplog.set_level(logging.INFO, logger="yuanzi.requests")
    client.force_login(owner)
    response = client.get(reverse("lobby"), HTTP_X_REQUEST_ID="abc12345-req")
    assert response["X-Request-ID"] == "abc12345-req"
    [line] = [x for x in _lines(caplog, "yuanzi.requests") if x["path"] == "/"]
    assert line["event"] == "request"
    assert line["request_id"] == "abc12345-req"
    assert (line["method"], line["status"], line["user_id"]) == ("GET", 200, owner.pk)
    assert line["ms"] >= 0
    caplog.clear()
    response = client.get("/no-such-page/", HTTP_X_REQUEST_ID="x y")  # not an id: a new one
    [line] = _lines(caplog, "yuanzi.requests")
    assert line["status"] == 404
    assert line["request_id"] == response["X-Request-ID"] != "x y"
    assert not [r for r in caplog.records if r.exc_info]  # a refusal: no traceback


@pytest.mark.django_db(transaction=True)
async def test_a_socket_message_is_one_line_with_its_outcome(owner, caplog):
    caplog.set_level(logging.INFO, logger="yuanzi.messages")
    table = await database_sync_to_async(tables.create_table)(owner, "日志桌")
    comm = await _open(table.pk, owner)
    try:
        await comm.send_json_to({"type": "sit", "seat": 1})
        await comm.send_json_to({"type": "sit", "seat": 9})
        while True:
            msg = await comm.receive_json_from(5)
            if msg["type"] == "error":
                break
    finally:
        await comm.disconnect()
    lines = _lines(caplog, "yuanzi.messages")
    assert [(x["type"], x["outcome"]) for x in lines] == [("sit", "ok"), ("sit", "bad_seat")]
    assert {x["user_id"] for x in lines} == {owner.pk}
    assert {x["table_id"] for x in lines} == {
        table.pk}
    assert len({x["connection"] for x in lines}) == 1
