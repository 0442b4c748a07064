// Fetching with byte counts, so the UI can say how much of the model has arrived.

export class LoadError extends Error {
  constructor(message) {
    super(message);
    this.name = "LoadError";
  }
}

async function request(url, init) {
  let response;
  try {
    response = await fetch(url, init);
  } catch (error) {
    throw new LoadError(`could not download ${url} (${error.message}): check the connection`);
  }
  if (!response.ok) {
    throw new LoadError(`could not download ${url}: the server answered ${response.status}`);
  }
  return response;
}

/** The manifest is never cached long: a cache-buster makes every visit see the latest build. */
export async function fetchManifest(url) {
  const busted = new URL(url);
  busted.searchParams.set("v", Date.now().toString(36));
  const response = await request(busted.href, { cache: "no-store" });
  try {
    return await response.json();
  } catch {
    throw new LoadError(`${url} is not valid JSON: rebuild the site`);
  }
}

/** Downloads `url` as an ArrayBuffer, calling `onBytes(n)` as chunks arrive. */
export async function fetchBytes(url, onBytes = () => {}) {
  const response = await request(url);
  if (!response.body) {
    const buffer = await response.arrayBuffer();
    onBytes(buffer.byteLength);
    return buffer;
  }
  const parts = [];
  let size = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    size += value.byteLength;
    onBytes(value.byteLength);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.byteLength;
  }
  return bytes.buffer;
}

export async function fetchJson(url, onBytes) {
  const buffer = await fetchBytes(url, onBytes);
  try {
    return JSON.parse(new TextDecoder().decode(buffer));
  } catch {
    throw new LoadError(`${url} is not valid JSON: rebuild the site`);
  }
}
