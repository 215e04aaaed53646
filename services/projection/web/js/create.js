import { catalogue, command, identity, rememberSeat } from "./api.js";
import { gameTypeName, h, toast, words } from "./dom.js";
import { t } from "./i18n.js";

const translate = t;  // the form's loops name their game types `t`

// A seat of the form: "me", "open", or a server-side bot ("bot:<name>", sent as {"bot": name}).
const SEAT_KINDS = () => [
  { value: "open", label: t("Open seat (anyone may join)") },
  { value: "bot:greedy", label: t("Bot: greedy") },
  { value: "bot:random", label: t("Bot: random") },
  { value: "bot:mcts", label: t("Bot: search (mcts)") },
];

function seatBody(kind) {
  if (kind === "me") return {};
  if (kind.startsWith("bot:")) return { bot: kind.slice(4) };
  return null;
}

export async function createPage(main, preset) {
  const me = identity();
  const types = await command("GET", "/game-types");
  if (!me) {
    main.replaceChildren(h("section.panel", {}, h("h1", {}, t("New game")),
      h("p", {}, t("Sign in (top right) to create a game."))));
    return null;
  }
  const typeSelect = h("select", { id: "game-type", name: "game_type" },
    types.map((t) => h("option", { value: t.game_type, selected: t.game_type === preset }, gameTypeName(t.game_type, translate))));
  const seatsBox = h("fieldset.seats", {});
  const optionsBox = h("fieldset.options", {});
  const rated = h("input", { type: "checkbox", id: "rated", name: "rated", checked: true });

  async function fill() {
    const type = types.find((t) => t.game_type === typeSelect.value);
    const count = h("input", { type: "number", id: "seat-count", min: type.min_seats, max: type.max_seats,
      value: Math.min(Math.max(2, type.min_seats), type.max_seats) });
    const rows = h("ol.seat-rows", {});
    const drawSeats = () => rows.replaceChildren(...Array.from({ length: Number(count.value) }, (_, i) => h("li", {},
      h("label", { for: `seat-${i}` }, `${t("Seat {number}", { number: i + 1 })} `),
      i === 0 ? h("select", { id: `seat-${i}`, disabled: true }, h("option", { value: "me" }, t("{name} (you)", { name: me.name })))
        : h("select", { id: `seat-${i}`, name: `seat-${i}` }, SEAT_KINDS().map((k) => h("option", { value: k.value }, k.label))))));
    count.addEventListener("change", drawSeats);
    drawSeats();
    seatsBox.replaceChildren(h("legend", {}, t("Seats")), h("label", { for: "seat-count" }, `${t("Players ({min}–{max})", { min: type.min_seats, max: type.max_seats })} `), count, rows);
    const cat = await catalogue(type.game_type);
    optionsBox.replaceChildren(h("legend", {}, t("Options")), ...cat.options.filter((o) => Array.isArray(o.values)).map((o) =>
      h("div.option", {}, h("label", { for: `opt-${o.name}` }, words(o.name)),
        h("select", { id: `opt-${o.name}`, name: o.name, "data-default": JSON.stringify(o.default) },
          o.values.map((v) => h("option", { value: JSON.stringify(v), selected: JSON.stringify(v) === JSON.stringify(o.default) }, String(v)))),
        h("small.muted", {}, o.text))));
  }

  const form = h("form.panel.create", {
    onsubmit: async (event) => {
      event.preventDefault();
      const seats = [...seatsBox.querySelectorAll("select")].map((select) => seatBody(select.value));
      const options = {};
      for (const select of optionsBox.querySelectorAll("select")) {
        if (select.value !== select.dataset.default) options[select.name] = JSON.parse(select.value);
      }
      try {
        const created = await command("POST", "/games", { bearer: me.jwt,
          body: { game_type: typeSelect.value, seats, options, rated: rated.checked } });
        const mine = created.seats.find((seat) => seat.token);
        if (mine) rememberSeat(created.game_id, mine.seat, mine.token, mine.expires_at_ms);
        location.hash = `#/game/${created.game_id}`;
      } catch (error) {
        toast(t("Could not create the game: {error}", { error: error.message }));
      }
    },
  }, h("h1", {}, t("New game")), h("label", { for: "game-type" }, `${t("Game")} `), typeSelect, seatsBox, optionsBox,
  h("label", {}, rated, ` ${t("Rated")}`), h("button.primary", { type: "submit" }, t("Create game")));
  typeSelect.addEventListener("change", fill);
  await fill();
  main.replaceChildren(form);
  return null;
}
