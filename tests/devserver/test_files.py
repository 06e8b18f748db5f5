"""Room file upload / download over real HTTP."""

from __future__ import annotations

import hashlib
from typing import Any

from .conftest import Live

A = "/api/v1/agent"


def _err(r: Any, status: int, code: str) -> None:
    assert r.status_code == status, r.text
    err = r.json()["error"]
    assert err["code"] == code and err["request_id"]


def _setup(live: Live) -> tuple[str, str]:
    aid, _, key = live.register("Filer")
    r = live.human("POST", "/api/v1/me/chats", json={"chat": {}})
    rid = r.json()["data"]["id"]
    body = {"participant": {"participant_id": aid}}
    assert live.human("POST", f"/api/v1/me/chats/{rid}/participants", json=body).status_code == 201
    return key, rid


def _get(live: Live, key: str, path: str, rng: str) -> Any:
    return live.client.get(live.rest + path, headers={"X-API-Key": key, "Range": rng})


def _put(live: Live, key: str, rid: str, blob: bytes, **headers: str) -> Any:
    h = {"X-API-Key": key, "x-file-name": "a.txt", **headers}
    return live.client.put(f"{live.rest}{A}/chats/{rid}/files", content=blob, headers=h)


def test_upload_dedupe_and_download(live: Live) -> None:
    key, rid = _setup(live)
    blob = bytes(range(256)) * 4
    digest = hashlib.sha256(blob).hexdigest()
    r = _put(live, key, rid, blob, **{"content-type": "image/png", "x-file-sha256": digest})
    assert r.status_code == 200, r.text
    att = r.json()["data"]
    assert att["name"] == "a.txt" and att["content_type"] == "image/png"
    assert att["bytes"] == len(blob) and att["sha256"] == digest and att["has_thumb"] is False
    again = _put(live, key, rid, blob, **{"x-file-name": "b.txt"}).json()["data"]
    assert again["id"] == att["id"]
    url = f"{A}/chats/{rid}/files/{att['id']}"
    d = live.agent(key, "GET", url)
    assert d.status_code == 200 and d.content == blob
    assert d.headers["content-type"].startswith("image/png")
    assert "attachment" in d.headers["content-disposition"]
    part = _get(live, key, url, "bytes=10-19")
    assert part.status_code == 206 and part.content == blob[10:20]
    assert part.headers["content-range"] == f"bytes 10-19/{len(blob)}"
    tail = _get(live, key, url, "bytes=-5")
    assert tail.status_code == 206 and tail.content == blob[-5:]
    bad = _get(live, key, url, "bytes=5000-")
    assert bad.status_code == 416 and bad.headers["content-range"] == f"bytes */{len(blob)}"
    default = _put(live, key, rid, b"hello").json()["data"]
    assert default["content_type"] == "application/octet-stream" and default["id"] != att["id"]


def test_file_errors_and_visibility(live: Live) -> None:
    key, rid = _setup(live)
    _, _, stranger = live.register("Stranger")
    url = f"{live.rest}{A}/chats/{rid}/files"
    r = live.client.put(url, content=b"x", headers={"X-API-Key": key})
    _err(r, 422, "validation_error")
    _err(_put(live, key, rid, b""), 422, "validation_error")
    _err(_put(live, key, rid, b"x", **{"x-file-sha256": "ABC"}), 422, "validation_error")
    wrong = hashlib.sha256(b"y").hexdigest()
    _err(_put(live, key, rid, b"x", **{"x-file-sha256": wrong}), 422, "validation_error")
    _err(_put(live, stranger, rid, b"x"), 404, "not_found")
    att = _put(live, key, rid, b"secret").json()["data"]
    _err(live.agent(stranger, "GET", f"{A}/chats/{rid}/files/{att['id']}"), 404, "not_found")
    _err(live.agent(key, "GET", f"{A}/chats/{rid}/files/nope"), 404, "not_found")
    _err(live.client.put(url, content=b"x"), 401, "unauthorized")
    _err(live.human("GET", f"{A}/chats/{rid}/files/{att['id']}"), 403, "forbidden")


def test_upload_too_large(live: Live, monkeypatch: Any) -> None:
    from band.devserver.store import files as store_files

    key, rid = _setup(live)
    monkeypatch.setattr(store_files, "MAX_FILE_BYTES", 8)
    _err(_put(live, key, rid, b"0123456789"), 413, "payload_too_large")
    assert _put(live, key, rid, b"01234567").status_code == 200
