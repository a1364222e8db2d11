/**
 * Payment provider sandbox entry point (a local stand-in for ProviderDirect and
 * ProviderHosted; see DESIGN "Payments"). The payments issue fills in the protocols.
 */
import http from 'node:http';

const server = http.createServer((req, res) => {
  res.setHeader('content-type', 'application/json');
  if (req.url === '/health') return res.end('{"status":"ok"}');
  res.statusCode = 404;
  res.end('{"error":"not found"}');
});
server.listen(Number(process.env.PORT ?? 4010), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
process.on('SIGINT', () => server.close(() => process.exit(0)));
