"""Which way to reach Gemini: an API key, Vertex AI (project and location with ADC, or express mode), or none.

Follows Gemini CLI: `security.auth.selectedType` when set, else the environment (`GOOGLE_GENAI_USE_GCA`,
`GOOGLE_GENAI_USE_VERTEXAI`, `GEMINI_API_KEY` / `GOOGLE_API_KEY`). "Login with Google" is not offered here, and
the user is told so in plain words rather than being dropped onto another method unannounced."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum


class AuthType(StrEnum):
    """The values Gemini CLI writes to `security.auth.selectedType`."""

    login_with_google = "oauth-personal"
    gemini_api_key = "gemini-api-key"
    vertex_ai = "vertex-ai"
    cloud_shell = "cloud-shell"
    compute_adc = "compute-default-credentials"


NOT_OFFERED = {
    AuthType.login_with_google: "Login with Google (oauth-personal)",
    AuthType.cloud_shell: "Cloud Shell login (cloud-shell)",
    AuthType.compute_adc: "Compute Engine default credentials (compute-default-credentials)",
}
HOW_TO = ("set GEMINI_API_KEY (a Gemini API key), or GOOGLE_GENAI_USE_VERTEXAI=true with GOOGLE_CLOUD_PROJECT and "
          "GOOGLE_CLOUD_LOCATION (Vertex AI through application default credentials) or with GOOGLE_API_KEY "
          "(Vertex AI express mode)")


@dataclass(frozen=True)
class Auth:
    """The method chosen. `usable` is False when nothing (or nothing we offer) is configured: then `problem`
    says why and what to set. `explicit` is True when settings named the method (not guessed from the env)."""

    method: AuthType | None
    api_key: str | None = None
    vertex: bool = False
    project: str | None = None
    location: str | None = None
    base_url: str | None = None
    problem: str = ""
    explicit: bool = False
    note: str = ""  # said alongside a usable method (e.g. "settings chose oauth-personal; using the API key")

    @property
    def usable(self) -> bool:
        return not self.problem and self.method in (AuthType.gemini_api_key, AuthType.vertex_ai)

    def describe(self) -> str:
        """One paragraph for `/auth`: what is in use and where it came from."""
        source = "security.auth.selectedType" if self.explicit else "the environment"
        if not self.usable:
            text = self.problem or f"No authentication is configured: {HOW_TO}."
            return f"{text}\nWithout it gemini-tui runs the offline demo model."
        if self.vertex and self.api_key:
            text = f"Vertex AI, express mode (GOOGLE_API_KEY {mask(self.api_key)}), chosen by {source}."
        elif self.vertex:
            text = (f"Vertex AI: project {self.project}, location {self.location}, application default "
                    f"credentials (GOOGLE_APPLICATION_CREDENTIALS or gcloud), chosen by {source}.")
        else:
            text = f"Gemini API key {mask(self.api_key or '')}, chosen by {source}."
        if self.base_url:
            text += f" Requests go to {self.base_url}."
        return f"{text}\n{self.note}".rstrip()


def mask(secret: str) -> str:
    return f"…{secret[-4:]}" if len(secret) > 8 else "(set)"


def _true(value: str | None) -> bool:
    return (value or "").strip().lower() in ("true", "1")


def gemini_key(env: Mapping[str, str]) -> str | None:
    return env.get("GEMINI_API_KEY") or env.get("GOOGLE_API_KEY") or None


def _vertex(env: Mapping[str, str], explicit: bool, note: str = "") -> Auth:
    project = env.get("GOOGLE_CLOUD_PROJECT") or env.get("GOOGLE_CLOUD_PROJECT_ID") or None
    location = env.get("GOOGLE_CLOUD_LOCATION") or None
    base_url = env.get("GOOGLE_VERTEX_BASE_URL") or None
    express_key = env.get("GOOGLE_API_KEY") or None
    if express_key:  # as Gemini CLI: an API key with Vertex AI is express mode, even when a project is set
        return Auth(AuthType.vertex_ai, api_key=express_key, vertex=True, base_url=base_url, explicit=explicit,
                    note=note)
    if project and location:
        return Auth(AuthType.vertex_ai, vertex=True, project=project, location=location, base_url=base_url,
                    explicit=explicit, note=note)
    missing = " and ".join(name for name, value in (("GOOGLE_CLOUD_PROJECT", project),
                                                    ("GOOGLE_CLOUD_LOCATION", location)) if not value)
    return Auth(AuthType.vertex_ai, vertex=True, explicit=explicit,
                problem=(f"Vertex AI is selected but {missing} {'is' if ' and ' not in missing else 'are'} not set: "
                         "set GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION (with application default credentials),"
                         " or GOOGLE_API_KEY for express mode."))


def _api_key(env: Mapping[str, str], explicit: bool, note: str = "") -> Auth:
    key = gemini_key(env)
    if key is None:
        return Auth(AuthType.gemini_api_key, explicit=explicit,
                    problem="The Gemini API key is selected but GEMINI_API_KEY is not set.")
    return Auth(AuthType.gemini_api_key, api_key=key, base_url=env.get("GOOGLE_GEMINI_BASE_URL") or None,
                explicit=explicit, note=note)


def resolve_auth(selected_type: str | None, env: Mapping[str, str]) -> Auth:
    """The method to use, from `security.auth.selectedType` (when set) or the environment."""
    if selected_type:
        try:
            chosen = AuthType(selected_type)
        except ValueError:
            return Auth(None, explicit=True, problem=(
                f"security.auth.selectedType is {selected_type!r}, which is not a method Gemini CLI or gemini-tui "
                f"knows; {HOW_TO}."))
        return _from_type(chosen, env, explicit=True)
    if _true(env.get("GOOGLE_GENAI_USE_GCA")):
        return _from_type(AuthType.login_with_google, env, explicit=False)
    if _true(env.get("GOOGLE_GENAI_USE_VERTEXAI")):
        return _vertex(env, explicit=False)
    if gemini_key(env):
        return _api_key(env, explicit=False)
    return Auth(None, problem=f"No GEMINI_API_KEY set (nor Vertex AI): {HOW_TO}.")


def _from_type(chosen: AuthType, env: Mapping[str, str], *, explicit: bool) -> Auth:
    if chosen is AuthType.gemini_api_key:
        return _api_key(env, explicit)
    if chosen is AuthType.vertex_ai:
        return _vertex(env, explicit)
    # a method we do not offer: use what the environment gives, and say so; else explain what to set
    what = NOT_OFFERED[chosen]
    why = f"{what} is selected, but gemini-tui does not offer it"
    if _true(env.get("GOOGLE_GENAI_USE_VERTEXAI")):
        fallback = _vertex(env, explicit=False, note=f"{why}; using Vertex AI from the environment instead.")
        if fallback.usable:
            return fallback
    if gemini_key(env):
        return _api_key(env, explicit=False, note=f"{why}; using the API key from the environment instead.")
    return Auth(chosen, explicit=explicit, problem=f"{why}: {HOW_TO}.")
