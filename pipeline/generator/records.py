"""What the generator's renderers hand to the log layouts: one record per log line, and the view
of a consumer host that the noise module needs (kept here so that noise and render do not import
each other)."""

from __future__ import annotations

from dataclasses import dataclass
from random import Random
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from pipeline.generator.scenario import Scenario
    from pipeline.generator.sim import Simulation


@dataclass
class Rec:
    ms: int
    level: str
    thread: str
    logger: str
    msg: str
    stack: list[str] | None = None


class FactRenderer:
    """A consumer host's renderer: its lines are what `one` writes for each of the simulation's facts
    about that host, in the simulation's order (the Java, librdkafka, kafka-python and KafkaJS
    renderers differ only in `one`)."""

    sim: Simulation
    host: str

    def records(self) -> list[Any]:
        out: list[Any] = []
        for f in self.sim.facts:
            if f.host == self.host:
                self.one(out, f)
        return out

    def one(self, out: list[Any], f: Any) -> None:
        raise NotImplementedError


class ClientHost(Protocol):
    """One consumer host being rendered (render.ClientRenderer): what its noise lines depend on."""

    sim: Simulation
    sc: Scenario
    host: str
    rng: Random
    era: str
    c: Any              # the host's simulated client (sim.clients[host])
    group: str
    main_thread: str
    pid: int

    def prefix(self) -> str: ...
