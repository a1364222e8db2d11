/**
 * SMTP catcher for dev and tests: a real SMTP server (smtp-server) that keeps every
 * message in memory, and an HTTP API to read them:
 *   GET /messages?to=addr   -> [{ id, from, to, subject, text, html, date, messageId, session }]
 * (`session`: the SMTP connection the message came in on, so a test can tell reused connections.)
 *   DELETE /messages        -> clears the mailbox
 */
import http from 'node:http';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

interface Stored {
  id: number;
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  date: string;
  messageId: string;
  session: string;
}

const messages: Stored[] = [];
let nextId = 1;

const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  onData(stream, session, callback) {
    simpleParser(stream)
      .then((mail) => {
        messages.push({
          id: nextId++,
          from: mail.from?.text ?? '',
          to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
          subject: mail.subject ?? '',
          text: mail.text ?? '',
          html: typeof mail.html === 'string' ? mail.html : '',
          date: new Date().toISOString(),
          messageId: mail.messageId ?? '',
          session: session.id,
        });
        callback();
      })
      .catch((e: Error) => callback(e));
  },
});
// A client that disappears mid-conversation (e.g. a worker killed while sending) must not stop the catcher.
smtp.on('error', (e: Error) => console.error(JSON.stringify({ level: 'warn', msg: 'smtp connection error', error: e.message })));
smtp.listen(Number(process.env.SMTP_PORT ?? 1025), '127.0.0.1');

const api = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  res.setHeader('content-type', 'application/json');
  if (url.pathname === '/health') return res.end('{"status":"ok"}');
  if (url.pathname === '/messages' && req.method === 'DELETE') {
    messages.length = 0;
    return res.end('[]');
  }
  if (url.pathname === '/messages') {
    const to = url.searchParams.get('to')?.toLowerCase();
    return res.end(JSON.stringify(to ? messages.filter((m) => m.to.includes(to)) : messages));
  }
  res.statusCode = 404;
  res.end('{"error":"not found"}');
});
api.listen(Number(process.env.HTTP_PORT ?? 1080), '127.0.0.1');

const stop = () => {
  smtp.close(() => undefined);
  api.close(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
