/**
 * Members of objects whose names come from outside: the JSON mediation builds from request data (form fields,
 * XML elements, multipart fields), and, through the same functions, headers turned into objects
 * (analytics, the WebSocket handshake), token claims in the backend JWT and user claims. A name may be one
 * every plain object inherits (`__proto__`, `constructor`, `toString`): a plain `obj[name]` would read the
 * inherited member for a missing one, and `obj.__proto__ = v` would re-parent the object instead of adding a
 * field. These look at and define own members only, so each name becomes a field of its own
 * (test/fixtures/attacks/object-keys.json).
 */

/** Sets `name` to `value` as an own member, replacing an earlier one of the same name. */
export function setMember(obj: Record<string, unknown>, name: string, value: unknown): void {
  Object.defineProperty(obj, name, { value, writable: true, enumerable: true, configurable: true });
}

/** Adds `value` under `name`: the first as the member itself, a repeated name collects the values in an array. */
export function addMember(obj: Record<string, unknown>, name: string, value: unknown): void {
  if (!Object.hasOwn(obj, name)) { setMember(obj, name, value); return; }
  const prev = obj[name];
  // The values are never arrays themselves (a field's text, an element's value), so an array here is one
  // made by an earlier repetition.
  if (Array.isArray(prev)) prev.push(value);
  else setMember(obj, name, [prev, value]);
}

/** Adds `value` under `name`, after an earlier value of the same name and `separator` (a header's list of values). */
export function joinMember(obj: Record<string, string>, name: string, value: string, separator: string): void {
  setMember(obj, name, Object.hasOwn(obj, name) ? `${obj[name]}${separator}${value}` : value);
}
