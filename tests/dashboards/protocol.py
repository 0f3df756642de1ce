"""A dashboard session without a browser: Streamlit's own websocket protocol, spoken from Python.

Unlike `browser` (headless Chromium, which draws what it receives), a `Session` sends the
messages the page's JavaScript would send (a rerun with the widgets' values) and reads what the
server sends back, without drawing any of it. It measures the server alone: what a session
waits for before its browser starts drawing, with no browser sharing the server's cores.
Used by the concurrency tests and by `python -m tests.benchmarks reliability`.

The messages are Streamlit's protobufs (`streamlit.proto`): the client sends `BackMsg`s with
`rerun_script`, the server answers with `ForwardMsg`s (`new_session`, `delta`s with the page's
elements, and `script_finished` when the run is over). A widget is addressed by the id the
server gives its element; the Compare page's text box is found by its type.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ClientState_pb2 import ClientState
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState, WidgetStates


@dataclass
class Run:
    """One script run as the client saw it: seconds from the request to `script_finished`."""

    seconds: float
    messages: int
    bytes: int
    markdown: list[str] = field(default_factory=list)
    html: list[str] = field(default_factory=list)

    def shows(self, text: str) -> bool:
        """Whether a markdown element of the run contains `text`."""
        return any(text in body for body in self.markdown)


class Session:
    """One browser tab's worth of protocol, on `ws://127.0.0.1:PORT/_stcore/stream`."""

    def __init__(self, port: int, *, timeout: float = 60.0) -> None:
        from websockets.sync.client import connect

        self._connection = connect(f"ws://127.0.0.1:{port}/_stcore/stream", subprotocols=["streamlit"],  # type: ignore[list-item]
                                   max_size=None, open_timeout=timeout)
        self._ws = self._connection.__enter__()  # a `with` block that `close` ends
        self.timeout = timeout
        self.text_area_id: str | None = None
        self._page = ""

    def run(self, widgets: list[WidgetState] | None = None) -> Run:
        """Ask for a script run with `widgets` set (the others keep their values); wait for its end."""
        state = ClientState(query_string="", page_script_hash=self._page,
                            widget_states=WidgetStates(widgets=widgets or []))
        t0 = time.perf_counter()
        self._ws.send(BackMsg(rerun_script=state).SerializeToString())
        run = Run(0.0, 0, 0)
        while True:
            raw = self._ws.recv(timeout=self.timeout)
            run.messages += 1
            run.bytes += len(raw)
            msg = ForwardMsg()
            msg.ParseFromString(raw)
            kind = msg.WhichOneof("type")
            if kind == "new_session":
                self._page = msg.new_session.main_script_hash or self._page
            elif kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
                element = msg.delta.new_element
                which = element.WhichOneof("type")
                if which == "text_area" and self.text_area_id is None:
                    self.text_area_id = element.text_area.id
                elif which == "markdown":
                    run.markdown.append(element.markdown.body)
                elif which == "html":
                    run.html.append(element.html.body)
            elif kind == "script_finished":
                run.seconds = time.perf_counter() - t0
                if msg.script_finished != ForwardMsg.FINISHED_SUCCESSFULLY:
                    raise RuntimeError(f"the script run ended with status {msg.script_finished}")
                return run

    def paste(self, text: str) -> Run:
        """Submit `text` in the page's text box (what Ctrl+Enter sends), after a first `run()`."""
        if self.text_area_id is None:
            raise RuntimeError("no text box seen yet: call run() first")
        return self.run([WidgetState(id=self.text_area_id, string_value=text)])

    def close(self) -> None:
        self._connection.__exit__(None, None, None)


def paste_at_once(sessions: list[Session], texts: list[str], *, timeout: float = 120.0) -> list[Run]:
    """Each session pastes its text, all released at the same moment (a thread each); their runs, in order."""
    runs: list[Run | None] = [None] * len(sessions)
    gate = threading.Barrier(len(sessions))

    def paste(i: int) -> None:
        gate.wait()
        runs[i] = sessions[i].paste(texts[i])

    threads = [threading.Thread(target=paste, args=(i,)) for i in range(len(sessions))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout)
    done = [r for r in runs if r is not None]
    if len(done) < len(runs):
        raise TimeoutError(f"{len(runs) - len(done)} of {len(runs)} sessions did not finish within {timeout} s")
    return done


def tokens_shown(name: str, n_tokens: int) -> str:
    """The Compare page's heading of a drawn tokenizer, as markdown: '**o200k_base** · 1,234 tokens'."""
    return f"**{name}** · {n_tokens:,} tokens"
