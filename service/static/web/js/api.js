// The REST API as the pages use it: JSON in and out, errors as RFC 9457 problem details.

import { t } from "./i18n.js";

/** An error answer: ``code`` is stable, ``detail`` is a sentence for people. */
export class Problem extends Error {
  constructor(status, body) {
    super(body.detail || `HTTP ${status}`);
    this.status = status;
    this.code = body.code || "network";
    this.detail = body.detail || this.message;
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

/** The link that gives a seat its table: the token rides in the fragment, never sent to the server. */
export const seatLink = (matchId, token) =>
  `${location.origin}/matches/${matchId}/table` + (token ? `#token=${encodeURIComponent(token)}` : "#watch");
