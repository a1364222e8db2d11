/**
 * Company-document rules without I/O: accepted types sniffed from the bytes (and matching the
 * extension), folder names, duplicate names ("name (2).ext"), download headers, storage stats.
 */

export const MAX_DOCUMENT_BYTES = 50 * 1024 * 1024;
export const MAX_FOLDER_DEPTH = 10;
export const CDN_URL_SECONDS = 3600;

export type DocumentKind = 'pdf' | 'png' | 'jpg' | 'gif' | 'webp' | 'txt' | 'csv' | 'docx' | 'xlsx' | 'pptx' | 'zip';

export const MIME_TYPES: Record<DocumentKind, string> = {
  pdf: 'application/pdf',
  png: 'image/png',
  jpg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  txt: 'text/plain; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  zip: 'application/zip',
};

/** Extension (lower case, without dot) to the kind it must be; jpeg is jpg. */
export function kindOfExtension(ext: string): DocumentKind | null {
  const e = ext.toLowerCase() === 'jpeg' ? 'jpg' : ext.toLowerCase();
  return e in MIME_TYPES ? (e as DocumentKind) : null;
}

export function extensionOf(fileName: string): string {
  const dot = fileName.lastIndexOf('.');
  return dot > 0 && dot < fileName.length - 1 ? fileName.slice(dot + 1).toLowerCase() : '';
}

const startsWith = (b: Buffer, sig: number[], at = 0) => b.length >= at + sig.length && sig.every((x, i) => b[at + i] === x);

function looksLikeText(head: Buffer): boolean {
  if (head.includes(0)) return false;
  try {
    // A multi-byte character cut at the end of the sample is not an error.
    new TextDecoder('utf-8', { fatal: true }).decode(head.subarray(0, Math.max(0, head.length - 3)));
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether the bytes are of the kind the extension claims. `head` is the start of the file,
 * `tail` its end (a zip's central directory, which names the Office parts).
 */
export function bytesMatchKind(kind: DocumentKind, head: Buffer, tail: Buffer, size: number): boolean {
  switch (kind) {
    case 'pdf':
      return startsWith(head, [0x25, 0x50, 0x44, 0x46, 0x2d]);
    case 'png':
      return startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    case 'jpg':
      return startsWith(head, [0xff, 0xd8, 0xff]);
    case 'gif':
      return head.subarray(0, 6).toString('latin1') === 'GIF87a' || head.subarray(0, 6).toString('latin1') === 'GIF89a';
    case 'webp':
      return head.subarray(0, 4).toString('latin1') === 'RIFF' && head.subarray(8, 12).toString('latin1') === 'WEBP';
    case 'txt':
    case 'csv':
      return size > 0 && looksLikeText(head);
    case 'zip':
      return startsWith(head, [0x50, 0x4b, 0x03, 0x04]) || startsWith(head, [0x50, 0x4b, 0x05, 0x06]);
    case 'docx':
    case 'xlsx':
    case 'pptx': {
      if (!startsWith(head, [0x50, 0x4b, 0x03, 0x04])) return false;
      const part = { docx: 'word/', xlsx: 'xl/', pptx: 'ppt/' }[kind];
      const names = Buffer.concat([head, tail]).toString('latin1');
      return names.includes('[Content_Types].xml') && names.includes(part);
    }
  }
}

/** Why a folder name is refused, or null. */
export function folderNameProblem(name: string): string | null {
  if (!name.trim()) return 'name is required.';
  if (name.length > 255) return 'name must be at most 255 characters.';
  if (/[/\\]/.test(name)) return 'name must not contain a slash or backslash.';
  // eslint-disable-next-line no-control-regex -- control characters are what is refused
  if (/[\u0000-\u001f]/.test(name)) return 'name must not contain control characters.';
  return null;
}

/** A stored file name from an uploaded one: no folders, no control characters, at most 255 characters. */
export function cleanFileName(original: string | null | undefined): string {
  const base = (original ?? '').split(/[\\/]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex -- control characters are what is removed
  const clean = base.replace(/[\u0000-\u001f\u007f]/g, '').trim();
  if (clean.length <= 255) return clean;
  const ext = extensionOf(clean);
  return ext ? `${clean.slice(0, 254 - ext.length)}.${ext}` : clean.slice(0, 255);
}

/** The first of `name`, `name (2).ext`, `name (3).ext`... not in `taken` (compared case-insensitively). */
export function uniqueName(name: string, taken: Iterable<string>): string {
  const used = new Set([...taken].map((t) => t.toLowerCase()));
  if (!used.has(name.toLowerCase())) return name;
  const ext = extensionOf(name);
  const stem = ext ? name.slice(0, name.length - ext.length - 1) : name;
  for (let n = 2; ; n++) {
    const candidate = ext ? `${stem} (${n}).${ext}` : `${stem} (${n})`;
    if (!used.has(candidate.toLowerCase())) return candidate;
  }
}

/** `attachment; filename="<ascii fallback>"; filename*=UTF-8''<percent-encoded>` (RFC 6266 / 5987). */
export function contentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const encoded = encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return ascii === fileName ? `attachment; filename="${ascii}"` : `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

export function storageStats(totalFiles: number, totalSize: number, maxSize: number) {
  return {
    totalFiles,
    totalSize,
    maxSize,
    usedPercentage: maxSize > 0 ? Math.min(100, Math.round((totalSize / maxSize) * 10000) / 100) : 100,
    availableSize: Math.max(0, maxSize - totalSize),
  };
}

/** Bytes as a short readable figure for messages. */
export function formatBytes(n: number): string {
  if (n >= 1024 * 1024 * 1024) return `${Math.round((n / 1024 ** 3) * 100) / 100} GiB`;
  if (n >= 1024 * 1024) return `${Math.round((n / 1024 ** 2) * 100) / 100} MiB`;
  if (n >= 1024) return `${Math.round((n / 1024) * 100) / 100} KiB`;
  return `${n} bytes`;
}
