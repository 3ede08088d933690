import { z } from 'zod';

/** `POST /v1/playground/session`: a short-lived test key minted server-side for the playground page. */
export const PlaygroundSessionSchema = z
  .object({
    key: z.string().describe('a kp_test_ key; works only on the test host'),
    key_id: z.string(),
    tenant: z.string(),
    scopes: z.array(z.string()),
    expires_at: z.string().describe('ISO date-time; the key stops working then'),
  })
  .meta({ id: 'PlaygroundSession' });
