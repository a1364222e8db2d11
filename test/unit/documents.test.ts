import {
  bytesMatchKind,
  cleanFileName,
  contentDisposition,
  folderNameProblem,
  kindOfExtension,
  storageStats,
  uniqueName,
} from '../../src/domain/documents/rules';

const zipWith = (...names: string[]) => Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.from(names.join('\0'))]);

describe('document type sniffing', () => {
  test.each([
    ['pdf', Buffer.from('%PDF-1.7\n'), true],
    ['pdf', Buffer.from('PDF-1.7'), false],
    ['png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0]), true],
    ['jpg', Buffer.from([0xff, 0xd8, 0xff, 0xe0]), true],
    ['gif', Buffer.from('GIF89a...'), true],
    ['webp', Buffer.from('RIFF\0\0\0\0WEBPVP8 '), true],
    ['txt', Buffer.from('plain text ü'), true],
    ['csv', Buffer.from([0x61, 0x00, 0x62]), false],
    ['zip', zipWith('a.txt'), true],
    ['docx', zipWith('[Content_Types].xml', 'word/document.xml'), true],
    ['xlsx', zipWith('[Content_Types].xml', 'word/document.xml'), false],
    ['pptx', zipWith('[Content_Types].xml', 'ppt/slides/slide1.xml'), true],
  ] as const)('when the extension says %s, then the sample matches: %p', (kind, bytes, expected) => {
    expect(bytesMatchKind(kind, bytes, Buffer.alloc(0), bytes.length)).toBe(expected);
  });

  test('when an extension is not accepted, then it has no kind; jpeg is jpg', () => {
    expect(kindOfExtension('exe')).toBeNull();
    expect(kindOfExtension('JPEG')).toBe('jpg');
  });
});

describe('document names', () => {
  test('when a name is taken, then (2), (3)... are added before the extension, case-insensitively', () => {
    expect(uniqueName('a.pdf', [])).toBe('a.pdf');
    expect(uniqueName('a.pdf', ['A.PDF'])).toBe('a (2).pdf');
    expect(uniqueName('a.pdf', ['a.pdf', 'a (2).pdf'])).toBe('a (3).pdf');
    expect(uniqueName('README', ['readme'])).toBe('README (2)');
  });

  test('when a folder name has a slash, backslash or is too long, then it is refused', () => {
    expect(folderNameProblem('a/b')).toContain('slash');
    expect(folderNameProblem('a\\b')).toContain('backslash');
    expect(folderNameProblem('x'.repeat(256))).toContain('255');
    expect(folderNameProblem('Contracts 2026')).toBeNull();
  });

  test('when a file name carries folders or control characters, then they are dropped', () => {
    expect(cleanFileName('C:\\temp\\a\u0001b.pdf')).toBe('ab.pdf');
  });

  test('when the name is not ASCII, then Content-Disposition adds filename*', () => {
    expect(contentDisposition('plain.pdf')).toBe('attachment; filename="plain.pdf"');
    expect(contentDisposition('Ü "x".pdf')).toBe(`attachment; filename="_ _x_.pdf"; filename*=UTF-8''%C3%9C%20%22x%22.pdf`);
  });
});

test('when stats are computed, then usedPercentage has two decimals and availableSize never goes below 0', () => {
  expect(storageStats(1, 614400, 1048576)).toEqual({ totalFiles: 1, totalSize: 614400, maxSize: 1048576, usedPercentage: 58.59, availableSize: 434176 });
  expect(storageStats(2, 10, 5)).toMatchObject({ usedPercentage: 100, availableSize: 0 });
});
