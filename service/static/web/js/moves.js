// Legal moves as controls: a button per concrete move, a stepper for a numeric range.

import { h, num, words } from "./dom.js";
import { has, scoped, t } from "./i18n.js";

const field = (name) => (has(scoped(`field.${name}`)) ? t(scoped(`field.${name}`)) : words(name));
const typeWords = (type) => (has(`move.${type}`) ? t(`move.${type}`) : words(type));

export const isSpan = (v) => v !== null && typeof v === "object" && "min" in v && "max" in v && "step" in v;

/** The move's identity for matching controls and remembered problems. */
export const moveKey = (move) => JSON.stringify(move);

/** A readable label for any move, used where a renderer gives none. */
export function describeMove(move) {
  const rest = Object.entries(move).filter(([k]) => k !== "type")
    .map(([k, v]) => (isSpan(v) ? `${field(k)} ${v.min}–${v.max}` : `${field(k)} ${Array.isArray(v) ? v.join(", ") : v}`));
  return typeWords(move.type) + (rest.length ? ` (${rest.join(", ")})` : "");
}

/**
 * One control for a legal move.  ``play(concreteMove, element)`` sends it.  A range becomes a number
 * field (the server, not the browser, judges the number, so a refused value shows the server's reason).
 */
export function moveControl(move, label, play, attrs = {}) {
  const spans = Object.entries(move).filter(([, v]) => isSpan(v));
  if (!spans.length) {
    const button = h("button", { type: "button", class: "move", "data-move": moveKey(move), ...attrs },
      label ?? describeMove(move));
    button.addEventListener("click", () => play(move, button));
    return button;
  }
  const fields = spans.map(([name, span]) => ({ field: name, span, input: h("input", {
    type: "number", min: span.min, max: span.max, step: span.step, value: span.min, name,
    "aria-label": t("move.range", { field: field(name), min: span.min, max: span.max }),
  }) }));
  const form = h("form", { class: "move stepper", novalidate: true, "data-move": moveKey(move), ...attrs },
    fields.map(({ field: name, span, input }) => h("label", {}, `${field(name)} `, input,
      h("span", { class: "hint" }, ` ${num(span.min)}–${num(span.max)}`))),
    h("button", { type: "submit" }, label ?? typeWords(move.type)));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const concrete = { ...move };
    for (const { field, input } of fields) concrete[field] = Number(input.value);
    play(concrete, form, move);
  });
  return form;
}
