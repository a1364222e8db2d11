/** docker-compose.yml keeps operator surfaces off the host and the application off MinIO's root account. */
import { readFileSync } from 'node:fs';
import path from 'node:path';

// js-yaml comes with jest (istanbul); only this test reads YAML.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const yaml = require('js-yaml') as { load: (s: string) => unknown };

interface Service {
  image?: string;
  ports?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  command?: string[] | string;
}
const compose = yaml.load(readFileSync(path.join(__dirname, '..', '..', 'docker-compose.yml'), 'utf8')) as { services: Record<string, Service> };
const published = (s: Service) => (s.ports ?? []).map((p) => String(p).split(':').slice(-1)[0]);

describe('docker-compose.yml', () => {
  test('when deployed, then the Temporal frontend, the Temporal UI and the MinIO console are not published to the host', () => {
    expect(published(compose.services.temporal)).toEqual([]);
    expect(published(compose.services['temporal-ui'])).toEqual([]);
    expect(published(compose.services.minio)).toEqual(['9000']);
    expect(published(compose.services.api)).toEqual(['3000']);
  });

  test('when the API and worker start, then they use the bucket-limited MinIO user created by the one-shot init, not the root credentials', () => {
    for (const name of ['api', 'worker', 'migrate']) {
      const env = compose.services[name].environment ?? {};
      expect(env.S3_ACCESS_KEY).toMatch(/MINIO_APP_USER/);
      expect(env.S3_SECRET_KEY).toMatch(/MINIO_APP_PASSWORD/);
      expect(JSON.stringify(env)).not.toMatch(/MINIO_ROOT/);
    }
    expect(compose.services.api.depends_on?.['minio-init']).toEqual({ condition: 'service_completed_successfully' });
    const init = compose.services['minio-init'];
    expect(init.image).toMatch(/^minio\/mc:/);
    const script = ([] as string[]).concat(init.command ?? []).join('\n');
    expect(script).toContain('mc admin user add');
    expect(script).toContain('mc admin policy attach local commerce-app');
    expect(script).toContain('arn:aws:s3:::$$BUCKET/*');
  });

  test('when a client sends X-Forwarded-For, then the deployment does not trust it by default', () => {
    expect(compose.services.api.environment?.TRUST_PROXY).toBe('${TRUST_PROXY:-0}');
  });

  test('when the ops port listens beyond loopback in a container, then it needs OPS_TOKEN and is not published to the host', () => {
    for (const name of ['api', 'worker']) {
      const s = compose.services[name];
      expect(s.environment?.OPS_BIND).toBe('0.0.0.0');
      expect(s.environment?.OPS_TOKEN).toMatch(/^\$\{OPS_TOKEN:\?/);
      expect(published(s)).not.toContain(s.environment?.OPS_PORT);
    }
  });
});
