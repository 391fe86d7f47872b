import { ServerResponse } from 'node:http';

/** Header fields as node's `writeHead` takes them: a name, then its value, and so on. */
type HeldFields = Array<string | number>;

/**
 * The edge's responses. On the ingest endpoint a response's header fields are held in a plain list
 * and written with its status in one `writeHead`, instead of each going through `setHeader`: node
 * then builds the head straight from the list, without the lower-cased map `setHeader` keeps for
 * later reads. A single-event 202 carries six fields of its own; set one by one they cost 5–8 % of
 * the api's CPU per request (bench/NOTES.md). Every other response (Express's) uses
 * `setHeader` as usual, since Express reads its headers back.
 */
export class EdgeResponse extends ServerResponse {
  /** While held: the fields set so far, each name once. */
  heldFields: HeldFields | undefined = undefined;
}

/**
 * From now on the response's fields are set with setResponseHeader and written by writeResponseHead,
 * and nothing else may write its head. A response of another server (a test's) is left as it is.
 */
export function holdHeaders(res: ServerResponse): void {
  if (res instanceof EdgeResponse) res.heldFields = [];
}

/** `res.setHeader`, or the same field held for writeResponseHead: a second value for a name replaces the first. */
export function setResponseHeader(res: ServerResponse, name: string, value: string | number): void {
  const held = (res as Partial<EdgeResponse>).heldFields;
  if (held === undefined) {
    res.setHeader(name, value);
    return;
  }
  const at = indexOfField(held, name);
  if (at === -1) held.push(name, value);
  else held[at + 1] = value;
}

/** The value a field was given (after the head is written too), whether it was held or set. */
export function responseHeader(res: ServerResponse, name: string): string | number | undefined {
  const held = (res as Partial<EdgeResponse>).heldFields;
  if (held === undefined) {
    const value = res.getHeader(name);
    return Array.isArray(value) ? value.join(', ') : value;
  }
  const at = indexOfField(held, name);
  return at === -1 ? undefined : held[at + 1];
}

/**
 * Writes the status and the header fields: the held ones in one `writeHead`, or those set on the
 * response. Fields set with `res.setHeader` besides held ones (CORS, a shutdown's `Connection:
 * close`) are kept: node then merges the list into them.
 */
export function writeResponseHead(res: ServerResponse, status: number): void {
  const held = (res as Partial<EdgeResponse>).heldFields;
  if (held === undefined) res.statusCode = status;
  else res.writeHead(status, held);
}

function indexOfField(fields: HeldFields, name: string): number {
  const wanted = name.toLowerCase();
  for (let at = 0; at < fields.length; at += 2) {
    const field = fields[at] as string;
    if (field.length === wanted.length && field.toLowerCase() === wanted) return at;
  }
  return -1;
}
