"""Helpers for the real-browser tests (fixtures ``chromium`` and ``browser_login`` are in conftest)."""

from pathlib import Path

# Playwright driving Debian's Chromium (bin/test installs it; never downloaded).
ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def screenshot(page, name: str) -> Path:
    """Save a full-page screenshot as a test artefact under artifacts/screenshots/ (git-ignored)."""
    path = ARTIFACTS / "screenshots" / f"{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(path), full_page=True)
    return path
