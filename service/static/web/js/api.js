// The REST API as the pages use it: JSON in and out, errors as RFC 9457 problem details.

import { has, lang, t } from "./i18n.js";

/** An error answer: ``code`` is stable, ``detail`` is a sentence for people. */
export class Problem extends Error {
  constructor(status, body) {
    super(body.detail || `HTTP ${status}`);
    this.status = status;
    this.code = body.code || "network";
    this.detail = body.detail || this.message;
    this.reason = body.reason || null;
  }

  /**
   * The problem for people in the page's language.  English shows the server's sentence (it names the
   * numbers); another language shows the catalogue's words for the game's ``reason`` (e.g. bid_too_low),
   * else for the stable ``code``, and only failing both the server's English sentence.
   */
  get text() {
    if (lang === "en") return this.detail;
    if (this.reason && has(`problem.reason.${this.reason}`)) return t(`problem.reason.${this.reason}`);
    if (has(`problem.${this.code}`)) return t(`problem.${this.code}`);
    return this.detail;
  }
}

export async function call(method, path, { token, body } = {}) {
  const headers = { Accept: "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (error) {
    throw new Problem(0, { code: "network", detail: t("error.network") });
  }
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new Problem(response.status, data);
  return data;
}

export const get = (path, token) => call("GET", path, { token });
export const post = (path, body, token) => call("POST", path, { token, body });

/** The link that gives a seat its table: the token rides in the fragment, never sent to the server; an
 * invitation's link says so (``invite``), and its table asks the person for their name. */
export const seatLink = (matchId, token, invite = false) =>
  `${location.origin}/matches/${matchId}/table` + (token ? `#token=${encodeURIComponent(token)}` : "#watch")
  + (token && invite ? "&invite=1" : "");
