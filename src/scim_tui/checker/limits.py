"""Every limit scim-tui holds, in one table: what it reads, keeps, sends and waits for at most.

A server under test, or a file on disk, may be of any size: each limit below keeps the machine
scim-tui runs on (its memory, its time) and the server (its data, its load) safe from that.
Those a person may need to change say how; the others are far above anything real.
"""

KIB = 1024
MIB = 1024 * KIB

# What one answer of a server may be.
MAX_HEADER_BYTES = 64 * KIB
"""The header section of one response, status line included: a larger one is read no further.
Real servers send a few KiB (RFC 9110 §5.4 lets a client refuse a larger head)."""
MAX_HEADER_FIELDS = 100
"""A response with this many header fields or more is read no further (real servers send about 20)."""
MAX_JSON_DEPTH = 64
"""How deep a JSON answer may nest; SCIM documents nest about ten levels."""
MAX_BODY_CHARS = 256 * KIB
"""Bodies longer than this are cut in the recorded exchange (the check itself saw all of it)."""
DEFAULT_RESPONSE_BYTES = 10 * MIB
"""One response's body, decoded: a larger one is read no further. Overridable: a profile's
max_response_bytes (1 KiB to 1 GiB)."""

# What one run does.
MAX_RESOURCE_TYPES = 20
"""Resource types one run checks (each takes a few hundred requests and a dozen creations); the
others are SKIPPED saying so. Overridable: a profile's max_resource_types, --max-resource-types."""
MAX_SCHEMA_READS = 100
"""Schemas read one by one (GET /Schemas/{id}) because /Schemas does not list them, in one run;
each is read once."""
MAX_REQUEST_WAIT = 60.0
"""Seconds one request waits in all for a busy server (429, 503) before its answer stands."""
MAX_LISTING_PAGES = 20
"""Pages a check reads of one listing by startIndex and count (a server's whole user list may be
large): the check judges those it read."""
MAX_SAMPLED_PAGES = 10
"""Pages a check that samples paging (Microsoft's gallery pagination tests, pages of 5) reads."""
MAX_CURSOR_PAGES = 5
"""Pages followed by nextCursor (RFC 9865) before a cursor listing is judged endless."""
MAX_RUN_WAIT = 300.0
"""Seconds the requests of one run wait in all for a busy server (429, 503): past that, the run
ends early, saying so (Pacing.max_run_wait)."""

# What scim-tui reads back from disk.
MAX_PROFILE_BYTES = 1 * MIB
"""A profile file; a few hundred bytes in practice."""
MAX_BASELINE_BYTES = 16 * MIB
"""A baseline file: thousands of accepted failures."""
MAX_DOCUMENT_BYTES = 64 * MIB
"""A discovery document given as a file (the schemas of a large server)."""
MAX_STATE_BYTES = 1 * MIB
"""A file of the app's state (the selection remembered for a profile): a few hundred bytes."""
MAX_HISTORY_REPORT_BYTES = 64 * MIB
"""A run's report in the history, unpacked: a larger one is not written, nor read back."""
MAX_HISTORY_REPORT_VALUES = 1_000_000
"""JSON objects and arrays in a run's report in the history (a real one holds one per kilobyte
or so): more would take gigabytes to read back."""
MAX_HISTORY_SUMMARY_BYTES = 16 * MIB
"""A run's summary in the history, unpacked."""
MAX_JOURNAL_BYTES = 4 * MIB
"""A run's journal of its creations (what a killed run left), read back by the next run."""

# What scim-tui keeps on disk.
HISTORY_KEPT_RUNS = 50
"""Runs kept per profile in the history, the oldest dropped first."""
HISTORY_KEPT_BYTES = 100 * MIB
"""Bytes of runs kept per profile in the history, the oldest dropped first (the newest stays, whatever its size)."""


def byte_size(count: int) -> str:
    """A number of bytes as a person reads it: "64 KiB", "1.5 MiB", "300 bytes"."""
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= size:
            return f"{count / size:g} {unit}"
    return f"{count} bytes"
