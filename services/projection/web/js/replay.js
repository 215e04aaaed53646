// Replay: a control bar over a game's versions (first, step back, play/pause, step forward, live, a slider and the
// list of moves from the history), showing the view as it was at a version with the page's own drawers: the
// viewer's own view, a seat's (`GET /games/{id}/seats/{seat}/view?at=V` with its token) for a player, the spectator's
// (`GET /games/{id}/view?at=V`) for everyone else.  The page stays live underneath: new versions extend the bar.
// Only the versions that end a commit were ever seen: `?at=V` answers the view at the end of the commit that holds V
// (its `version`), and says the version before it (`X-Benthic-Previous-Version`), where a step back goes.
import { h } from "./dom.js";
import { entryInWords } from "./history.js";
import { t } from "./i18n.js";

const PLAY_EVERY_MS = 900;

/** The bar of a game; `show(body)` draws a view answer (`{version, view, ...}`), `show(null)` the live view.
 * `asViewer(path, options)` reads a path of the game's read API (`/view?at=V`, `/history?after=N&limit=L`) as the
 * page's viewer sees it: the seat's view and history for its player, the spectator's otherwise.
 * Returns `{element, latest(version, finished)}`: the page tells it each live version it gets. */
export function replayBar({ cat, name, show, asViewer }) {
  const state = { latest: 0, finished: false, shown: null, previous: 0, playing: null, historyAfter: 0, asked: 0 };
  const answers = new Map();  // version asked or shown -> {body, previous} (a version's view never changes)

  const button = (label, text, onclick) => h("button.small", { type: "button", "aria-label": label, title: label, onclick }, text);
  const first = button(t("First move"), `|◀ ${t("First")}`, () => { pause(); go(1); });
  const back = button(t("Step back"), `◀ ${t("Back")}`, () => { pause(); stepBack(); });
  const play = button(t("Play"), `▶ ${t("Play")}`, () => (state.playing ? pause() : start()));
  const forward = button(t("Step forward"), `${t("Next")} ▶`, () => { pause(); go((state.shown ?? state.latest) + 1); });
  const live = button(t("Last move (live)"), `${t("Live")} ▶|`, () => { pause(); go(state.latest); });
  const slider = h("input", { type: "range", min: 1, max: 1, value: 1, step: 1, "aria-label": t("Version to show"),
    "data-testid": "replay-slider", oninput: () => { const to = Number(slider.value); pause(); go(to); } });
  const where = h("output.replay-where", { "data-testid": "replay-where", "aria-live": "polite" });
  const moves = h("ol.replay-moves", { "data-testid": "replay-moves" });
  const list = h("details.replay-list", { ontoggle: () => list.open && loadHistory() },
    h("summary", {}, t("Moves — jump to one")), moves);
  const element = h("section.replay.panel", { "data-testid": "replay", "aria-label": t("Replay") },
    h("div.replay-controls", {}, first, back, play, forward, live, slider, where), list);

  function label() {
    const at = state.shown ?? state.latest;
    where.textContent = state.shown === null
      ? (state.finished ? t("Final position (version {version})", { version: at }) : t("Live (version {version})", { version: at }))
      : t("Replay: version {version} of {latest}", { version: at, latest: state.latest });
    element.classList.toggle("replaying", state.shown !== null);
    slider.max = String(Math.max(1, state.latest));
    slider.value = String(at);
    first.disabled = back.disabled = state.shown !== null && state.previous < 1;
    forward.disabled = live.disabled = state.shown === null;
    play.textContent = state.playing ? `❚❚ ${t("Pause")}` : `▶ ${t("Play")}`;
    play.setAttribute("aria-label", state.playing ? t("Pause") : t("Play"));
    for (const item of moves.querySelectorAll("[data-version]")) {  // the move (commit) shown
      const version = Number(item.dataset.version);
      item.classList.toggle("current", state.shown !== null && version > state.previous && version <= state.shown);
    }
  }

  async function answerAt(version) {
    let answer = answers.get(version);
    if (!answer) {
      const { data, headers } = await asViewer(`/view?at=${version}`, { withHeaders: true });
      answer = { body: data, previous: Number(headers.get("X-Benthic-Previous-Version")) || 0 };
      answers.set(version, answer);
      answers.set(data.version, answer);
    }
    return answer;
  }

  async function go(version) {
    const asked = ++state.asked;
    const target = Math.max(1, Math.min(version, state.latest));
    const answer = target < state.latest ? await answerAt(target) : null;
    if (asked !== state.asked) return;  // a later choice won
    if (answer === null || answer.body.version >= state.latest) {  // the last version is the live view the page has
      state.shown = null;
      show(null);
    } else {
      state.shown = answer.body.version;
      state.previous = answer.previous;
      show(answer.body);
    }
    label();
  }

  async function stepBack() {
    const asked = state.asked;
    const { previous } = await answerAt(state.shown ?? state.latest);
    if (asked === state.asked && previous >= 1) await go(previous);
  }

  function start() {
    if (state.shown === null) go(1);
    state.playing = setInterval(() => {
      if (state.shown === null) { pause(); return; }
      go(state.shown + 1).catch(pause);
    }, PLAY_EVERY_MS);
    label();
  }

  function pause() {
    clearInterval(state.playing);
    state.playing = null;
    label();
  }

  function loadHistory() {  // one reading at a time, each from where the last one ended
    state.loading = (state.loading || Promise.resolve()).then(readHistory).catch(() => {});
    return state.loading;
  }

  // The list holds one line per move: the entries of one commit (one command, the setup, a platform step: they
  // share its time) make one line, its first sentence, the others after it; a click shows the commit's end.
  async function readHistory() {
    while (state.historyAfter < state.latest) {
      const page = await asViewer(`/history?after=${state.historyAfter}&limit=1000`);
      const before = state.historyAfter;
      for (const entry of page.events) {
        state.historyAfter = Math.max(state.historyAfter, entry.version);
        const text = entryInWords(entry, cat, name);
        const last = moves.lastElementChild;
        if (last && Number(last.dataset.ts) === entry.ts_ms) {
          last.dataset.version = String(entry.version);
          if (text) {
            const more = last.querySelector(".more");
            if (last.dataset.said) more.textContent += `${more.textContent ? "; " : " — "}${text}`;
            else { last.querySelector(".said").textContent = text; last.dataset.said = "1"; }
          }
          continue;
        }
        const item = h("li", { "data-version": entry.version, "data-first": entry.version, "data-ts": entry.ts_ms,
          "data-said": text ? "1" : undefined },
        h("button.link.replay-jump", { type: "button", onclick: () => { pause(); go(Number(item.dataset.version)); } },
          h("span.said", {}, text || ""), h("span.more", {})));
        moves.append(item);
      }
      if (state.historyAfter === before || page.version <= state.historyAfter) break;
    }
    for (const item of [...moves.children]) if (!item.dataset.said) item.remove();  // a step without words
    label();
  }

  return {
    element,
    latest(version, finished) {
      state.latest = Math.max(state.latest, version);
      state.finished = finished;
      if (list.open) loadHistory();
      label();
    },
    stop: pause,
  };
}
