import { describe, expect, it } from 'vitest';
import { AGENTS } from './registry.js';
import { parseJobInput } from './runner.js';
import { routeCatalog } from '../routes/index.js';

describe('the agents list', () => {
  const routes = routeCatalog();

  it('gives every agent one submit route, in list order, taking its input schema', () => {
    const submits = routes.filter((r) => r.method === 'post' && r.path.startsWith('/v1/agents/'));
    expect(submits.map((r) => r.path)).toEqual(AGENTS.map((a) => `/v1/agents/${a.type.replace(/_/g, '-')}`));
    for (const [i, a] of AGENTS.entries()) {
      expect((submits[i]!.body as { schema: unknown }).schema, a.type).toBe(a.input);
      expect(submits[i]!.operationId, a.type).toMatch(/^submit[A-Z][A-Za-z]+$/);
    }
    expect(new Set(AGENTS.map((a) => a.type)).size).toBe(AGENTS.length);
  });

  it("has, for every agent, a success and a 422 example, and an output schema named in the document's components", () => {
    for (const a of AGENTS) {
      expect(a.examples.some((e) => e.status === undefined), a.type).toBe(true);
      expect(a.examples.some((e) => e.status === 422), a.type).toBe(true);
      expect(a.output.meta()?.id, a.type).toMatch(/Result$/);
    }
  });

  it('parses a stored input at claim time to what the submit stored: every success example gives the same input twice', () => {
    for (const a of AGENTS) {
      for (const e of a.examples.filter((x) => x.status === undefined)) {
        const submitted = a.input.parse(e.body);
        expect(parseJobInput(a, JSON.parse(JSON.stringify(submitted))), `${a.type}: ${e.summary}`).toEqual(submitted);
      }
    }
  });

  it("refuses at claim time a stored input that is not this version's, as the job's invalid_job_input error", () => {
    const [a] = AGENTS;
    expect(() => parseJobInput(a, { code: '99213', renamed_field: 1 })).toThrow(expect.objectContaining({ code: 'invalid_job_input', message: expect.stringContaining('body.renamed_field') }));
    expect(() => parseJobInput(a, 'not an object')).toThrow(expect.objectContaining({ code: 'invalid_job_input' }));
  });
});
