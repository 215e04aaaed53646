// The two APIs, the signed-in player (dev issuer or a JWT pasted in) and the seat tokens.
let config = null;
const catalogues = new Map();

export class ApiError extends Error {
  constructor(status, code, message, retryAfterS = null) {
    super(message); this.status = status; this.code = code; this.retryAfterS = retryAfterS;
  }
}

export async function loadConfig() {
  if (config) return config;
  const answer = await (await fetch("/client-config")).json();
  // An absolute URL, a path on this host ("/": one ingress for both APIs), or the page's host and the port.
  const url = answer.command_url ? new URL(answer.command_url, location.href).href
    : `${location.protocol}//${location.hostname}:${answer.command_port}`;
  config = { commandUrl: url.replace(/\/$/, "") };
  return config;
}

// The language of the texts the APIs answer (labels, history sentences, catalogue names): the player's choice,
// kept in localStorage and sent as Accept-Language; none chosen: the browser's own Accept-Language.
const LANGUAGE = "benthic.language";
export const LANGUAGES = { en: "English", pt: "Português" };
export const language = () => localStorage.getItem(LANGUAGE) || "";
export function setLanguage(lang) {
  if (lang) localStorage.setItem(LANGUAGE, lang); else localStorage.removeItem(LANGUAGE);
}

// `withHeaders`: answer `{ data, headers }` (the response's headers) instead of the body alone.
async function call(base, method, path, { body, bearer, signal, withHeaders = false } = {}) {
  const headers = {};
  if (language()) headers["Accept-Language"] = language();
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (bearer) headers.Authorization = `Bearer ${bearer}`;
  const response = await fetch(base + path, {
    method, headers, signal, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const data = text ? JSON.parse(text) : null;
  if (!response.ok) {
    const retryAfter = Number.parseFloat(response.headers.get("Retry-After"));
    throw new ApiError(response.status, data?.code || "http_error", data?.message || `HTTP ${response.status}`,
      Number.isFinite(retryAfter) ? retryAfter : null);
  }
  return withHeaders ? { data, headers: response.headers } : data;
}

export const read = (path, options) => call("", "GET", path, options);
export const command = async (method, path, options) => call((await loadConfig()).commandUrl, method, path, options);

// A cacheable answer in the chosen language carries it in the URL (`?lang=`), not only in Accept-Language: a
// catalogue is cached for a day, and Chromium's HTTP cache gave the English copy to a request in Portuguese in
// spite of its `Vary: Accept-Language`.
export function localized(path, params = new URLSearchParams()) {
  if (language()) params.set("lang", language());
  return params.size ? `${path}?${params}` : path;
}

// The catalogue of a game type's default content pack, or of `pack` (a game's lobby card names its `content_pack`).
export async function catalogue(gameType, pack = null) {
  const key = `${gameType}|${pack || ""}|${language()}`;
  const path = localized(`/game-types/${gameType}/content`, new URLSearchParams(pack ? { pack } : {}));
  if (!catalogues.has(key)) catalogues.set(key, command("GET", path));
  return catalogues.get(key);
}

// --- identity ------------------------------------------------------------------------------------------------
const KEY = "benthic.identity";

export function identity() {
  try {
    const saved = JSON.parse(localStorage.getItem(KEY) || "null");
    if (saved && saved.expiresAtMs > Date.now() + 60_000) return saved;
  } catch { /* a damaged entry is a signed-out player */ }
  return null;
}

export async function signIn(player, name) {
  const answer = await command("POST", "/dev/token", { body: { player, name } });
  const saved = { player: answer.player_id, name: name || player, jwt: answer.token, expiresAtMs: answer.expires_at_ms };
  localStorage.setItem(KEY, JSON.stringify(saved));
  return saved;
}

export function useJwt(jwt) {  // a JWT of the platform's identity provider, pasted in (no dev issuer)
  const claims = JSON.parse(atob(jwt.split(".")[1].replace(/-/g, "+").replace(/_/g, "/")));
  const saved = { player: claims.sub, name: claims.name || claims.sub, jwt, expiresAtMs: claims.exp * 1000 };
  localStorage.setItem(KEY, JSON.stringify(saved));
  return saved;
}

export function signOut() { localStorage.removeItem(KEY); }

// Seat tokens, per game, for this tab's player (sessionStorage: they expire within the hour anyway).
export function rememberSeat(gameId, seat, token, expiresAtMs) {
  sessionStorage.setItem(`benthic.seat.${gameId}`, JSON.stringify({ seat, token, expiresAtMs }));
}

export async function seatFor(gameId, { refresh = false } = {}) {
  const me = identity();
  if (!me) return null;
  const saved = JSON.parse(sessionStorage.getItem(`benthic.seat.${gameId}`) || "null");
  if (!refresh && saved && saved.expiresAtMs > Date.now() + 30_000) return saved;
  try {
    const answer = await command("POST", `/games/${gameId}/token`, { bearer: me.jwt });
    rememberSeat(gameId, answer.seat, answer.token, answer.expires_at_ms);
    return { seat: answer.seat, token: answer.token, expiresAtMs: answer.expires_at_ms };
  } catch (error) {
    if (error.code === "not_seated" || error.code === "game_finished" || error.status === 404) return null;
    throw error;
  }
}
