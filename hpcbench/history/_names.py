"""The name of one run in a history folder:
`20261127T114210Z-HOST-1f2e3d4c.json`, the run's date in UTC, the host it
ran on, eight random hex digits.

The folder's listing is the history's only index, so the name carries what
ordering needs: names sort by date, and two runs of the same second on the
same host still differ (the random part), so an append never meets an
existing name (and if it did, _append.py refuses rather than overwrite)."""
from __future__ import annotations

import re
import secrets
from datetime import datetime, timezone

#: What an entry's name looks like (the date part is read back for runs whose file has no date).
ENTRY = re.compile(r"^(?P<date>\d{8}T\d{6}Z)-(?P<host>[A-Za-z0-9.-]+)-(?P<token>[0-9a-f]{8})\.json$")
_STAMP = "%Y%m%dT%H%M%SZ"


def entry_name(date: datetime, host: str, token: str | None = None) -> str:
    """The file name of a run of `date` on `host` (anything but letters,
    digits, dots and dashes becomes '-'; at most 63 characters); `token` is
    the random part (8 hex digits; drawn when None)."""
    safe = re.sub(r"[^A-Za-z0-9.-]", "-", host)[:63].strip("-.") or "unknown"
    part = token if token is not None else secrets.token_hex(4)
    if not re.fullmatch(r"[0-9a-f]{8}", part):
        raise ValueError(f"the random part must be 8 hex digits, got {part!r}")
    return f"{as_utc(date).strftime(_STAMP)}-{safe}-{part}.json"


def as_utc(date: datetime) -> datetime:
    """`date` in UTC; a date without a zone is taken as UTC."""
    return date.replace(tzinfo=timezone.utc) if date.tzinfo is None else date.astimezone(timezone.utc)


def parse_date(text: object) -> datetime | None:
    """A results file's context date (ISO 8601) in UTC, or None when it is missing or not a date."""
    if not isinstance(text, str):
        return None
    try:
        return as_utc(datetime.fromisoformat(text.strip().replace("Z", "+00:00")))
    except ValueError:
        return None


def date_of_name(name: str) -> datetime | None:
    """The date an entry's name carries, or None for a name of another shape."""
    m = ENTRY.match(name)
    if not m:
        return None
    return datetime.strptime(m.group("date"), _STAMP).replace(tzinfo=timezone.utc)


def date_text(date: datetime | None) -> str:
    """'2026-11-27 11:42' (UTC), or '?' for a run without a date."""
    return as_utc(date).strftime("%Y-%m-%d %H:%M") if date is not None else "?"
