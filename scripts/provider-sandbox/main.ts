/**
 * Payment provider sandbox entry point (a local stand-in for ProviderDirect and
 * ProviderHosted; see DESIGN "Payments" and server.ts). Env: PORT, PROVIDER_CALLBACK_SECRET,
 * PROVIDER_PUBLIC_URL.
 */
import { configureLogger, log } from '../../src/logger.js';
import { createSandboxServer } from './server.js';

const port = Number(process.env.PORT ?? 4010);
const callbackSecret = process.env.PROVIDER_CALLBACK_SECRET ?? 'sandbox-callback-secret';
const publicUrl = process.env.PROVIDER_PUBLIC_URL ?? `http://127.0.0.1:${port}`;

configureLogger({ level: 'info', service: 'provider-sandbox' });
const server = createSandboxServer({ callbackSecret, publicUrl, log: (msg, fields) => log.info(msg, fields) });
server.listen(port, '127.0.0.1', () => log.info('provider sandbox listening', { port, publicUrl }));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
process.on('SIGINT', () => server.close(() => process.exit(0)));
