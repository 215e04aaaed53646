// One history entry in words: the server's sentence in the chosen language (`text`), or, for an event without
// one, who, what (the event's name), and its details with catalogue names for ids.
import { words } from "./dom.js";

const QUIET = new Set(["type", "seat", "auto", "replay", "source"]);

function named(cat, value) {
  if (typeof value === "string") {
    return cat.components[value]?.name || cat.terms?.[value]?.name || words(value);
  }
  if (Array.isArray(value)) {
    if (value.length === 2 && value.every(Number.isInteger)) return value.join(",");
    return value.map((v) => named(cat, v)).join(", ");
  }
  if (value && typeof value === "object") {
    return Object.entries(value).filter(([, v]) => v !== null && v !== false)
      .map(([k, v]) => `${words(k)} ${named(cat, v)}`).join(", ");
  }
  return String(value);
}

export function entryInWords(entry, cat, name) {
  return entry.text || eventInWords(entry.event, cat, name);
}

export function eventInWords(event, cat, name) {
  if (!event || typeof event !== "object") return null;
  const what = cat.terms?.[event.type]?.name || words(event.type || "event");
  const who = Number.isInteger(event.seat) ? `${name(event.seat)}: ` : "";
  const details = Object.entries(event)
    .filter(([k, v]) => !QUIET.has(k) && v !== null && v !== false && !(Array.isArray(v) && !v.length))
    .map(([k, v]) => `${words(k)} ${named(cat, v)}`);
  const text = `${who}${what}${details.length ? ` — ${details.join("; ")}` : ""}`;
  return text.length > 240 ? `${text.slice(0, 237)}…` : text;
}
