"""A URL the REST client can't use is refused where it is given, naming it as given."""

from __future__ import annotations

import pytest

from band.client import RestClient


@pytest.mark.parametrize(
    ("url", "said"),
    [
        # before: "not an http(s) URL: '127.0.0.1:8080/api/v1'" (the client's path appended)
        ("127.0.0.1:8080", "base_url '127.0.0.1:8080' is not an http:// or https:// URL"),
        ("ws://127.0.0.1:8080", "base_url 'ws://127.0.0.1:8080' is not an http:// or https://"),
        ("http://", "base_url 'http://' is not an http:// or https:// URL"),
        # before: accepted, then every call answered 404 at /api/v1/api/v1/...
        (
            "https://band.example/api/v1",
            "base_url 'https://band.example/api/v1' ends in /api/v1, which the client adds "
            "itself: give https://band.example",
        ),
        (
            "http://proxy.local/band/api/v1/",
            "ends in /api/v1, which the client adds itself: give http://proxy.local/band",
        ),
    ],
)
def test_a_base_url_that_cannot_work_is_a_value_error_naming_it(url: str, said: str) -> None:
    with pytest.raises(ValueError) as refused:
        RestClient("band_a_k", url)
    assert said in str(refused.value)


@pytest.mark.parametrize(
    "url",
    ["http://127.0.0.1:8080", "https://app.band.ai/", "http://proxy.local/band", "http://[::1]:1"],
)
def test_a_platform_address_with_or_without_a_path_is_taken(url: str) -> None:
    assert RestClient("band_a_k", url).base_url == url.rstrip("/")
