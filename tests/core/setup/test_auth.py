"""Authentication as Gemini CLI users have it: API key, Vertex AI (ADC and express mode), selectedType."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from gemini_tui.cli.assemble import build_model, build_session
from gemini_tui.core.models.gemini import GeminiModel
from gemini_tui.core.models.offline import OfflineModel
from gemini_tui.core.setup.auth import AuthType, resolve_auth
from gemini_tui.core.setup.config import Settings
from tests.fakes import warm_start
from tests.fakes.gemini_server import ACCESS_TOKEN, TOKEN_PATH, FakeGeminiServer, reply, text

VERTEX = {"GOOGLE_GENAI_USE_VERTEXAI": "true", "GOOGLE_CLOUD_PROJECT": "my-proj",
          "GOOGLE_CLOUD_LOCATION": "us-central1"}


def test_environment_picks_the_method() -> None:
    assert resolve_auth(None, {}).method is None
    assert resolve_auth(None, {"GEMINI_API_KEY": "k"}).method is AuthType.gemini_api_key
    vertex = resolve_auth(None, VERTEX)
    assert (vertex.method, vertex.vertex, vertex.project, vertex.location) == (AuthType.vertex_ai, True, "my-proj",
                                                                               "us-central1")
    assert vertex.usable and vertex.api_key is None
    express = resolve_auth(None, {"GOOGLE_GENAI_USE_VERTEXAI": "True", "GOOGLE_API_KEY": "g-key"})
    assert express.usable and express.vertex and express.api_key == "g-key" and express.project is None
    # Vertex without project/location or key: a plain problem naming what is missing
    lacking = resolve_auth(None, {"GOOGLE_GENAI_USE_VERTEXAI": "1", "GOOGLE_CLOUD_PROJECT": "p"})
    assert not lacking.usable and "GOOGLE_CLOUD_LOCATION" in lacking.problem


@pytest.mark.parametrize("env", [{}, {"GEMINI_API_KEY": "k"}, VERTEX, {"GOOGLE_GENAI_USE_GCA": "true"}])
@pytest.mark.parametrize("selected", [None, "gemini-api-key", "vertex-ai", "oauth-personal", "cloud-shell",
                                      "compute-default-credentials", "bogus"])
def test_every_combination_is_either_usable_or_says_what_to_set(selected: str | None, env: dict[str, str]) -> None:
    auth = resolve_auth(selected, env)
    description = auth.describe()
    if auth.usable:
        assert auth.method in (AuthType.gemini_api_key, AuthType.vertex_ai)
        assert "express-key" not in description and "g-key" not in description
        if selected not in (None, auth.method.value):
            assert "does not offer" in auth.note  # never a silent switch
    else:
        assert "offline demo model" in description
        assert "GEMINI_API_KEY" in auth.problem or "GOOGLE_CLOUD" in auth.problem
    if selected == "oauth-personal" and not auth.usable:
        assert "Login with Google" in auth.problem and "does not offer" in auth.problem
    if selected == "vertex-ai" and env is VERTEX:
        assert auth.vertex and auth.explicit


def test_selected_type_comes_from_v2_settings(tmp_path: Path, root: Path) -> None:
    (tmp_path / ".gemini").mkdir()
    (tmp_path / ".gemini/settings.json").write_text(json.dumps({"security": {"auth": {"selectedType": "vertex-ai"}}}))
    from gemini_tui.core.setup.config import load_settings

    settings = load_settings(root, home=tmp_path, env={})
    assert settings.auth_selected_type == "vertex-ai"
    assert not any("security" in n for n in settings.notices)
    # the API key in the environment does not win over the method settings chose
    model, notice = build_model("gemini-2.5-pro", root, {"GEMINI_API_KEY": "k"}, settings)
    assert isinstance(model, OfflineModel) and "Vertex AI is selected" in (notice or "")
    model, notice = build_model("gemini-2.5-pro", root, {**VERTEX, "GEMINI_API_KEY": "k"}, settings)
    assert isinstance(model, GeminiModel) and model.vertex and model.project == "my-proj"


def test_login_with_google_is_said_plainly(root: Path, tmp_path: Path) -> None:
    settings = Settings(home=tmp_path, auth_selected_type="oauth-personal")
    model, notice = build_model("gemini-2.5-pro", root, {}, settings)
    assert isinstance(model, OfflineModel)
    assert "Login with Google (oauth-personal) is selected, but gemini-tui does not offer it" in (notice or "")
    assert "GEMINI_API_KEY" in (notice or "") and "GOOGLE_GENAI_USE_VERTEXAI" in (notice or "")
    model, notice = build_model("gemini-2.5-pro", root, {"GEMINI_API_KEY": "k"}, settings)
    assert isinstance(model, GeminiModel) and "using the API key" in (notice or "")


def _service_account_file(path: Path, token_uri: str) -> Path:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption()).decode()
    path.write_text(json.dumps({
        "type": "service_account", "project_id": "adc-project", "private_key_id": "k1", "private_key": pem,
        "client_email": "tester@adc-project.iam.gserviceaccount.com", "client_id": "1",
        "token_uri": token_uri}))
    return path


async def test_vertex_with_adc_goes_to_the_vertex_path(root: Path, tmp_path: Path, gemini_server: FakeGeminiServer,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Application default credentials from a service-account file whose token endpoint is the fake server:
    the SDK fetches a token there, then streams from the Vertex path with the project and location."""
    credentials = _service_account_file(tmp_path / "sa.json", gemini_server.base_url + TOKEN_PATH)
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(credentials))  # google-auth reads os.environ
    env = {**VERTEX, "GOOGLE_VERTEX_BASE_URL": gemini_server.base_url}
    gemini_server.script(reply(text("Hello from Vertex.")))
    session = build_session(root, env=env, home=tmp_path, model="gemini-2.5-flash")
    assert isinstance(session.model, GeminiModel) and session.model.vertex
    await session.send("hi")
    request = gemini_server.requests[-1]
    assert request.path == ("/v1beta1/projects/my-proj/locations/us-central1/publishers/google/models/"
                            "gemini-2.5-flash:streamGenerateContent")
    assert request.headers["authorization"] == f"Bearer {ACCESS_TOKEN}"
    assert "x-goog-api-key" not in request.headers
    assert gemini_server.token_requests and "assertion" in gemini_server.token_requests[0]
    assert session.history[-1].parts[0].text == "Hello from Vertex."
    assert "project my-proj, location us-central1" in session.auth.describe()


async def test_vertex_express_mode_uses_the_api_key(root: Path, tmp_path: Path,
                                                    gemini_server: FakeGeminiServer) -> None:
    env = {"GOOGLE_GENAI_USE_VERTEXAI": "true", "GOOGLE_API_KEY": "express-key",
           "GOOGLE_VERTEX_BASE_URL": gemini_server.base_url}
    gemini_server.script(reply(text("Express.")))
    session = build_session(root, env=env, home=tmp_path, model="gemini-2.5-flash")
    await session.send("hi")
    request = gemini_server.requests[-1]
    assert request.path == "/v1beta1/publishers/google/models/gemini-2.5-flash:streamGenerateContent"
    assert request.headers["x-goog-api-key"] == "express-key"
    assert not gemini_server.token_requests


async def test_vertex_without_credentials_fails_with_a_way_out(root: Path, tmp_path: Path,
                                                               gemini_server: FakeGeminiServer,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(tmp_path / "missing.json"))
    env = {**VERTEX, "GOOGLE_VERTEX_BASE_URL": gemini_server.base_url}
    session = build_session(root, env=env, home=tmp_path, model="gemini-2.5-flash")
    from gemini_tui.core.ground.events import ErrorOccurred, TurnEndReason

    published: list[object] = []
    publish = session.bus.publish
    session.bus.publish = lambda event: (published.append(event), publish(event))[1]  # type: ignore[method-assign]
    assert await session.send("hi") is TurnEndReason.error
    messages = [e.message for e in published if isinstance(e, ErrorOccurred)]
    assert not gemini_server.requests
    assert any("Vertex AI credentials are not usable" in m and "GOOGLE_APPLICATION_CREDENTIALS" in m
               for m in messages)


def test_headless_vertex_run(root: Path, tmp_path: Path, gemini_server: FakeGeminiServer) -> None:
    credentials = _service_account_file(tmp_path / "sa.json", gemini_server.base_url + TOKEN_PATH)
    gemini_server.script(reply(text("Headless on Vertex.")))
    env = {**{k: v for k, v in os.environ.items() if not k.startswith(("GEMINI_", "GOOGLE_"))}, **VERTEX,
           "GOOGLE_VERTEX_BASE_URL": gemini_server.base_url, "GOOGLE_APPLICATION_CREDENTIALS": str(credentials),
           "GEMINI_CLI_HOME": str(tmp_path)}
    done = subprocess.run([*warm_start.command(env, "gemini_tui.cli.main"), "-p", "hi", "-m", "gemini-2.5-pro"],
                          cwd=root, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Headless on Vertex."
    assert "/projects/my-proj/locations/us-central1/" in gemini_server.requests[-1].path
