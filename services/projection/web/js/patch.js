// RFC 6902 JSON Patch, applied to a copy: the live stream's `delta` frames turn the view the client has into
// the next one (shared/benthic/views/deltas.py computes them). Every operation of the RFC; a patch that does not
// apply throws PatchError (the client then asks for the full view).

export class PatchError extends Error {}

function tokens(pointer) {  // RFC 6901
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) throw new PatchError(`bad pointer ${pointer}`);
  return pointer.slice(1).split("/").map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function index(array, token, adding) {
  if (adding && token === "-") return array.length;
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw new PatchError(`bad array index ${token}`);
  const i = Number(token);
  if (i > array.length || (!adding && i === array.length)) throw new PatchError(`index ${token} out of range`);
  return i;
}

function parentOf(doc, pointer) {  // [the container, the last token]
  const path = tokens(pointer);
  let node = doc;
  for (const token of path.slice(0, -1)) {
    node = Array.isArray(node) ? node[index(node, token, false)] : node?.[token];
    if (node === null || typeof node !== "object") throw new PatchError(`no ${pointer}`);
  }
  return [node, path[path.length - 1]];
}

function get(doc, pointer) {
  let node = doc;
  for (const token of tokens(pointer)) {
    if (node === null || typeof node !== "object") throw new PatchError(`no ${pointer}`);
    if (Array.isArray(node)) node = node[index(node, token, false)];
    else if (Object.hasOwn(node, token)) node = node[token];
    else throw new PatchError(`no ${pointer}`);
  }
  return node;
}

function add(doc, pointer, value) {
  if (pointer === "") return value;
  const [parent, last] = parentOf(doc, pointer);
  if (Array.isArray(parent)) parent.splice(index(parent, last, true), 0, value);
  else parent[last] = value;
  return doc;
}

function remove(doc, pointer) {
  const value = get(doc, pointer);
  const [parent, last] = parentOf(doc, pointer);
  if (Array.isArray(parent)) parent.splice(index(parent, last, false), 1);
  else delete parent[last];
  return value;
}

function equal(a, b) {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a), kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && equal(a[k], b[k]));
}

// The document `patch` makes of `doc` (`doc` itself is left as it was).
export function applyPatch(doc, patch) {
  let out = structuredClone(doc);
  for (const op of patch) {
    switch (op.op) {
      case "add": out = add(out, op.path, structuredClone(op.value)); break;
      case "remove": if (op.path === "") throw new PatchError("cannot remove the root"); remove(out, op.path); break;
      case "replace":
        if (op.path === "") { out = structuredClone(op.value); break; }
        remove(out, op.path); out = add(out, op.path, structuredClone(op.value)); break;
      case "move": {
        if (op.path !== op.from && op.path.startsWith(`${op.from}/`)) throw new PatchError("move into itself");
        const value = op.from === "" ? out : remove(out, op.from);
        out = add(out, op.path, value); break;
      }
      case "copy": out = add(out, op.path, structuredClone(get(out, op.from))); break;
      case "test": if (!equal(get(out, op.path), op.value)) throw new PatchError(`test failed at ${op.path}`); break;
      default: throw new PatchError(`unknown op ${op.op}`);
    }
  }
  return out;
}
