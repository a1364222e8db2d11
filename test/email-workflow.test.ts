import { Client, Connection } from '@temporalio/client';
import { createOrg, stack } from './support/helpers';

describe('e-mail workflow', () => {
  let connection: Connection;
  let client: Client;
  beforeAll(async () => {
    connection = await Connection.connect({ address: stack.urls.temporal });
    client = new Client({ connection, namespace: 'default' });
  });
  afterAll(async () => {
    await connection?.close();
  });

  test('when an organization is created, then a completed sendEmail workflow for the admin welcome is findable by OrganizationId', async () => {
    const org = await createOrg();
    const deadline = Date.now() + 15000;
    let found: { type: string; workflowId: string; status: string } | undefined;
    while (Date.now() < deadline) {
      const runs: { type: string; workflowId: string; status: string }[] = [];
      for await (const wf of client.workflow.list({ query: `OrganizationId = '${org.organizationId}'` }))
        runs.push({ type: wf.type, workflowId: wf.workflowId, status: wf.status.name });
      found = runs.find((r) => r.type === 'sendEmail' && r.workflowId.startsWith('email-welcome-admin-') && r.status === 'COMPLETED');
      if (found) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(found).toEqual({ type: 'sendEmail', workflowId: `email-welcome-admin-${org.organizationId}-${org.adminUserId}`, status: 'COMPLETED' });
    const result = await client.workflow.getHandle(found!.workflowId).result();
    expect(result).toEqual({ delivered: true });
  });
});
