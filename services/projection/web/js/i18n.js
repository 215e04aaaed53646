// The client's own words in the chosen language: t("English text", {name: value}) and tn(n, "{n} move",
// "{n} moves", {...}).  The English text is the msgid of the services' gettext catalogue; the projection service
// answers the client's msgids in a language (GET /app/messages.json?lang=), read once before the page is drawn.
// scripts/i18n_update.py finds the msgids in t(...) and tn(...) calls: write them as plain "..." literals.
import { language } from "./api.js";

let messages = {};
let plurals = new Intl.PluralRules("en");

// The language: the player's choice (localStorage), else the browser's; the URL names it (Chromium's cache
// ignored Vary: Accept-Language for us).  Unreadable: the English msgids are the words.
export async function loadMessages() {
  const wanted = language() || (navigator.languages || [navigator.language]).join(",");
  try {
    const response = await fetch(`/app/messages.json?lang=${encodeURIComponent(wanted)}`);
    const answer = await response.json();
    messages = answer.messages || {};
    plurals = new Intl.PluralRules(answer.language);
    document.documentElement.lang = answer.language;
  } catch { messages = {}; }
}

const fill = (text, params) => (params ? text.replace(/\{(\w+)\}/g, (all, name) => (name in params ? String(params[name]) : all)) : text);

export function t(text, params) {
  const found = messages[text];
  return fill(typeof found === "string" && found ? found : text, params);
}

export function tn(n, singular, plural, params = {}) {
  const forms = messages[singular];
  const text = Array.isArray(forms) ? forms[plurals.select(n) === "one" ? 0 : 1] : (n === 1 ? singular : plural);
  return fill(text, { n, ...params });
}
