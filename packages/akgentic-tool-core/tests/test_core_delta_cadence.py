"""PacedSnapshots: the snapshot cadence of a state of large payloads (the vector store's)."""

from __future__ import annotations

import threading

from akgentic.tool.core.snapshots import PacedSnapshots, SnapshotCadence, SnapshotSchedule


class Requests:
    def __init__(self) -> None:
        self.count = 0
        self.event = threading.Event()

    def __call__(self) -> None:
        self.count += 1
        self.event.set()


def test_a_burst_of_changes_requests_one_snapshot_after_the_delay() -> None:
    requests = Requests()
    paced = PacedSnapshots(0.05, 1e6, requests)
    assert not any(paced.record(1) for _ in range(100))  # never due on the caller's thread
    assert requests.event.wait(2)
    requests.event.clear()
    assert not requests.event.wait(0.15)
    assert requests.count == 1


def test_a_request_that_published_nothing_leaves_the_cadence_ready_to_arm_again() -> None:
    requests = Requests()
    paced = PacedSnapshots(0.02, 1e6, requests)
    paced.arm()
    assert requests.event.wait(2)
    requests.event.clear()
    paced.arm()  # no publication in between: a new change must still be scheduled
    assert requests.event.wait(2)
    assert requests.count == 2


def test_the_next_delay_follows_the_bytes_just_written() -> None:
    paced = PacedSnapshots(0.5, 1000.0, Requests())
    paced.published(200)
    assert paced.delay == 0.5  # small: the floor
    paced.published(5000)
    assert paced.delay == 5.0  # 5000 bytes at 1000 bytes/s
    paced.arm()
    paced.cancel()  # a stopping actor: nothing fires later


def test_both_cadences_satisfy_the_protocol() -> None:
    cadences: list[SnapshotCadence] = [SnapshotSchedule(1, 1.0), PacedSnapshots(1, 1, Requests())]
    for cadence in cadences:
        cadence.cancel()
