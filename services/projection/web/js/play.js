// The Play page (#/play): ask the matchmaker for a game (a ticket that waits, across reloads and days, until a wave
// seats you), see your tickets with their time waited, follow a matched ticket to its game; the invitations you
// sent and received; the players you block; your vacation budget.  The matchmaker's API (GET /client-config names
// it) with the signed-in player's JWT.
import { ApiError, command, identity, language } from "./api.js";
import { h, toast, words } from "./dom.js";
import { t } from "./i18n.js";

const POLL_MS = 3_000;
let base = null;

async function matchmakerUrl() {
  if (base) return base;
  const answer = await (await fetch("/client-config")).json();
  const url = answer.matchmaker_url ? new URL(answer.matchmaker_url, location.href).href
    : `${location.protocol}//${location.hostname}:${answer.matchmaker_port}`;
  base = url.replace(/\/$/, "");
  return base;
}

export async function mm(method, path, body) {
  const headers = { Authorization: `Bearer ${identity().jwt}` };
  if (language()) headers["Accept-Language"] = language();
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch((await matchmakerUrl()) + path,
    { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await response.json().catch(() => null);
  if (!response.ok) throw new ApiError(response.status, data?.code || "http_error", data?.message || `HTTP ${response.status}`);
  return data;
}

const waited = (s) => (s < 60 ? t("{n} s", { n: Math.floor(s) }) : s < 3600 ? t("{n} min", { n: Math.floor(s / 60) })
  : s < 86_400 ? t("{n} h", { n: Math.floor(s / 3600) }) : t("{n} d", { n: Math.floor(s / 86_400) }));
const seatsText = ([low, high]) => (low === high ? String(low) : `${low}–${high}`);
const STATUS = () => ({ waiting: t("waiting"), matched: t("matched"), cancelled: t("cancelled"), expired: t("expired"),
  open: t("open"), started: t("started"), declined: t("declined"), pending: t("pending"), accepted: t("accepted") });

function seatChoices(type) {
  const low = Math.max(2, type.min_seats);
  const choices = [];
  for (let n = low; n <= type.max_seats; n += 1) choices.push([n, n]);
  if (type.max_seats > low) choices.unshift([low, type.max_seats]);
  return choices;
}

function askForm(types, paces, refresh) {
  const typeSelect = h("select", { id: "play-type", name: "game_type", "data-testid": "play-type" },
    types.map((g) => h("option", { value: g.game_type }, words(g.game_type))));
  const seats = h("select", { id: "play-seats", name: "seats", "data-testid": "play-seats" });
  const fillSeats = () => {
    const type = types.find((g) => g.game_type === typeSelect.value);
    seats.replaceChildren(...seatChoices(type).map(([a, b]) => h("option", { value: JSON.stringify([a, b]) },
      a === b ? t("{n} players", { n: a }) : t("{low} to {high} players", { low: a, high: b }))));
  };
  typeSelect.addEventListener("change", fillSeats);
  fillSeats();
  const pace = h("select", { id: "play-pace", name: "pace", "data-testid": "play-pace" },
    paces.map((p) => h("option", { value: p.pace, selected: p.pace === "daily" }, paceText(p.pace))));
  const rated = h("input", { type: "checkbox", id: "play-rated", checked: true });
  return h("form.panel.play-ask", {
    onsubmit: async (event) => {
      event.preventDefault();
      try {
        await mm("POST", "/matchmaking/tickets", { game_type: typeSelect.value, seats: JSON.parse(seats.value),
          pace: pace.value, rated: rated.checked, name: identity().name });
        toast(t("You are in the queue: a wave will seat you with players of your level."));
        refresh();
      } catch (error) { toast(t("Could not ask for a game: {error}", { error: error.message })); }
    },
  }, h("h2", {}, t("Ask for a game")),
  h("div.row", {}, h("label", { for: "play-type" }, t("Game")), typeSelect),
  h("div.row", {}, h("label", { for: "play-seats" }, t("Seats")), seats),
  h("div.row", {}, h("label", { for: "play-pace" }, t("Pace")), pace),
  h("div.row", {}, rated, h("label", { for: "play-rated" }, t("Rated"))),
  h("button", { type: "submit", "data-testid": "play-ask" }, t("Ask for a game")));
}

function paceText(pace) {
  return { live: t("Live: 5 minutes a move"), daily: t("Daily: a move a day"), relaxed: t("Relaxed: a move every 3 days") }[pace] || pace;
}

function ticketRow(ticket, refresh) {
  const status = STATUS()[ticket.status] || ticket.status;
  const facts = [words(ticket.game_type), t("{seats} seats", { seats: seatsText(ticket.seats) }), paceText(ticket.pace),
    ticket.rated ? t("rated") : t("casual")];
  const row = h("li.ticket", { "data-testid": "ticket", "data-status": ticket.status },
    h("strong", {}, facts.join(" · ")), " ", h("span.badge", {}, status), " ",
    h("span.muted", { "data-waited": ticket.opened_at }, t("waited {time}", { time: waited(ticket.waited_s) })));
  if (ticket.status === "waiting") {
    if (ticket.position) row.append(" ", h("span.muted", {}, t("position {n}", { n: ticket.position })));
    row.append(" ", h("button.link", { "data-testid": "cancel-ticket", onclick: async () => {
      try { await mm("DELETE", `/matchmaking/tickets/${ticket.ticket_id}`); refresh(); }
      catch (error) { toast(error.message); }
    } }, t("Cancel")));
  } else if (ticket.status === "matched") {
    row.append(" ", ticket.seated ? h("a", { href: `#/game/${ticket.game_id}`, "data-testid": "ticket-game" },
      t("Play your game (seat {seat})", { seat: ticket.seat + 1 })) : h("span.muted", {}, t("creating the game…")));
  }
  return row;
}

function invitationRow(inv, me, refresh) {
  const mine = inv.inviter === me.player;
  const answers = inv.invitees.map((i) => `${i.player_id}: ${STATUS()[i.answer] || i.answer}`).join(", ");
  const row = h("li.invitation", { "data-testid": mine ? "sent-invitation" : "received-invitation", "data-status": inv.status },
    h("strong", {}, words(inv.game_type)), " ",
    mine ? t("to {players}", { players: answers }) : t("from {player}", { player: inv.inviter_name }), " ",
    h("span.badge", {}, STATUS()[inv.status] || inv.status));
  const act = (verb) => async () => {
    try { await mm("POST", `/invitations/${inv.invitation_id}/${verb}`, { name: me.name }); refresh(); }
    catch (error) { toast(error.message); }
  };
  if (!mine && inv.status === "open") {
    const mineAnswer = inv.invitees.find((i) => i.player_id === me.player)?.answer;
    if (mineAnswer !== "accepted") row.append(" ", h("button", { "data-testid": "accept", onclick: act("accept") }, t("Accept")));
    if (mineAnswer !== "declined") row.append(" ", h("button.link", { "data-testid": "decline", onclick: act("decline") }, t("Decline")));
  }
  if (inv.game_id) row.append(" ", h("a", { href: `#/game/${inv.game_id}`, "data-testid": "invitation-game" }, t("Play")));
  return row;
}

function inviteForm(types, refresh) {
  const typeSelect = h("select", { id: "invite-type", "data-testid": "invite-type" },
    types.map((g) => h("option", { value: g.game_type }, words(g.game_type))));
  const who = h("input", { id: "invite-players", "data-testid": "invite-players", required: true,
    placeholder: t("player ids, separated by commas") });
  return h("form.invite", {
    onsubmit: async (event) => {
      event.preventDefault();
      const invitees = who.value.split(",").map((p) => p.trim()).filter(Boolean);
      try {
        await mm("POST", "/invitations", { game_type: typeSelect.value, invitees, name: identity().name });
        who.value = "";
        refresh();
      } catch (error) { toast(t("Could not invite: {error}", { error: error.message })); }
    },
  }, h("label", { for: "invite-type" }, t("Invite to")), " ", typeSelect, " ",
  h("label", { for: "invite-players" }, t("Players")), " ", who, " ",
  h("button", { type: "submit", "data-testid": "invite" }, t("Invite")));
}

function blocksBox(blocks, refresh) {
  const other = h("input", { id: "block-player", "data-testid": "block-player", required: true, placeholder: t("player id") });
  return h("section.panel", {}, h("h2", {}, t("Players you block")),
    h("p.muted", {}, t("They are never seated at your table and you never see their invitations.")),
    h("ul.blocks", {}, blocks.blocks.length ? blocks.blocks.map((p) => h("li", {}, p, " ",
      h("button.link", { onclick: async () => { await mm("DELETE", `/players/me/blocks/${encodeURIComponent(p)}`); refresh(); } },
        t("Unblock")))) : h("li.muted", {}, t("Nobody."))),
    h("form", { onsubmit: async (event) => {
      event.preventDefault();
      try { await mm("PUT", `/players/me/blocks/${encodeURIComponent(other.value.trim())}`); other.value = ""; refresh(); }
      catch (error) { toast(error.message); }
    } }, h("label", { for: "block-player" }, t("Block")), " ", other, " ", h("button", { type: "submit" }, t("Block"))));
}

function vacationBox(vacation, refresh) {
  const p = vacation.policy;
  const days = h("input", { type: "number", id: "vacation-days", min: 1, max: Math.max(1, vacation.available_days), value: 1 });
  const box = h("section.panel", { "data-testid": "vacation" }, h("h2", {}, t("Vacation")),
    h("p.muted", {}, t("Your clocks stop in every game you sit in while you are away; your first move ends it early. {initial} days at the first use, {monthly} more every month, at most {cap}; each use costs at least {min}.",
      { initial: p.initial_days, monthly: p.days_per_month, cap: p.cap_days, min: p.min_charge_days })));
  if (vacation.on_vacation) {
    box.append(h("p", { "data-testid": "vacation-until" }, t("On vacation until {date}.", { date: new Date(vacation.current.until).toLocaleString(language() || undefined) })),
      h("button", { onclick: async () => { await mm("DELETE", "/players/me/vacation"); refresh(); } }, t("Come back now")));
  } else {
    box.append(h("p", {}, t("{n} days available.", { n: vacation.available_days })),
      h("form", { onsubmit: async (event) => {
        event.preventDefault();
        try { await mm("POST", "/players/me/vacation", { days: Number(days.value) }); refresh(); }
        catch (error) { toast(error.message); }
      } }, h("label", { for: "vacation-days" }, t("Days")), " ", days, " ",
      h("button", { type: "submit", disabled: vacation.available_days < 1 }, t("Go on vacation"))));
  }
  return box;
}

export async function playPage(main) {
  const me = identity();
  if (!me) {
    main.replaceChildren(h("section.panel", {}, h("h1", {}, t("Play")), h("p", {}, t("Sign in (top right) to ask for a game."))));
    return null;
  }
  const [types, paces] = await Promise.all([command("GET", "/game-types"), mm("GET", "/matchmaking/paces")]);
  const tickets = h("ul.tickets", { "data-testid": "tickets" });
  const received = h("ul.invitations", { "data-testid": "received" });
  const sent = h("ul.invitations", { "data-testid": "sent" });
  const blocks = h("div", {});
  const vacation = h("div", {});
  let stopped = false;
  let timer = null;

  async function refresh() {
    if (stopped) return;
    clearTimeout(timer);
    try {
      const [mine, invitations, blocked, away] = await Promise.all([mm("GET", "/players/me/tickets"),
        mm("GET", "/players/me/invitations"), mm("GET", "/players/me/blocks"), mm("GET", "/players/me/vacation")]);
      if (stopped) return;
      tickets.replaceChildren(...(mine.tickets.length ? mine.tickets.map((x) => ticketRow(x, refresh))
        : [h("li.muted", {}, t("No tickets yet: ask for a game above."))]));
      received.replaceChildren(...(invitations.received.length ? invitations.received.map((i) => invitationRow(i, me, refresh))
        : [h("li.muted", {}, t("None."))]));
      sent.replaceChildren(...(invitations.sent.length ? invitations.sent.map((i) => invitationRow(i, me, refresh))
        : [h("li.muted", {}, t("None."))]));
      blocks.replaceChildren(blocksBox(blocked, refresh));
      vacation.replaceChildren(vacationBox(away, refresh));
    } catch (error) {
      toast(t("Could not reach the matchmaker: {error}", { error: error.message }));
    }
    timer = setTimeout(refresh, POLL_MS);
  }

  main.replaceChildren(h("h1", {}, t("Play")), h("div.play", {},
    askForm(types, paces, refresh),
    h("section.panel", {}, h("h2", {}, t("Your tickets")), tickets),
    h("section.panel", {}, h("h2", {}, t("Invitations")), inviteForm(types, refresh),
      h("h3", {}, t("Received")), received, h("h3", {}, t("Sent")), sent),
    blocks, vacation));
  await refresh();
  return () => { stopped = true; clearTimeout(timer); };
}
