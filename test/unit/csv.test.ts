import { safeCell, toCsv } from '../../src/domain/csv';

describe('the one CSV writer', () => {
  test('when a cell starts with =, +, -, @, tab or CR, then it is prefixed with a quote so a spreadsheet shows it as text', () => {
    for (const evil of ['=HYPERLINK("http://evil.test","x")', '+cmd|" /C calc"!A0', '-2+3', '@SUM(A1:A9)', '\t=1', '\r=1']) expect(safeCell(evil)).toBe(`'${evil}`);
    expect(toCsv([['=1+1', '@x']])).toBe("'=1+1,'@x\r\n");
  });

  test('when a cell is a plain number, negative or signed, then it stays a number', () => {
    expect(toCsv([[-3, '-12.50', '+7', 0.5, '12']])).toBe('-3,-12.50,+7,0.5,12\r\n');
  });

  test('when values are empty, boolean, dates or objects, then they are written as text, RFC 4180 quoted, CRLF line ends', () => {
    expect(toCsv([['h1', 'h2'], [null, undefined], [true, false], [new Date(0), { a: 1 }], ['x,"y"', 'a\nb']])).toBe(
      'h1,h2\r\n,\r\ntrue,false\r\n1970-01-01T00:00:00.000Z,"{""a"":1}"\r\n"x,""y""","a\nb"\r\n',
    );
    expect(toCsv([])).toBe('');
  });
});
