import { codeResearch } from './code_research.js';
import { denialResolution } from './denial_resolution.js';
import { medicalNecessity } from './medical_necessity.js';

/**
 * Every agent, each declared once (`defineAgent`). From this list come the submit routes
 * (`server/routes/agents.ts`, in this order), their MCP tools and OpenAPI operations, the job
 * result's schema (`job_schemas.ts`) and the runner's registry (`wiring.ts`).
 */
export const AGENTS = [codeResearch, medicalNecessity, denialResolution] as const;
