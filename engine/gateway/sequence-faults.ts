import { renderFault, type SequenceRegistry, type CallFacts } from '../../mediation/index.js';
import type { FaultInfo } from '../../errors/error-entry.js';
import type { FaultFacts, FaultRenderer, RenderedFault } from '../kernel/fault.js';

const EMPTY = Buffer.alloc(0);

/**
 * Faults through the deployed fault sequences (mediation/): the sequence the seed names for the error
 * builds the response; the registry is swapped whole when sequences are redeployed.
 */
export class SequenceFaultRenderer implements FaultRenderer {
  constructor(public registry: SequenceRegistry) {}

  render(fault: FaultInfo, facts: FaultFacts): RenderedFault {
    const callFacts: CallFacts = {
      method: facts.method,
      path: facts.path,
      clientIp: facts.clientIp,
      ...(facts.apiName !== undefined ? { apiName: facts.apiName, apiVersion: facts.apiVersion, apiContext: facts.apiContext } : {}),
      ...(facts.resource !== undefined ? { resource: facts.resource } : {}),
      ...(facts.application !== undefined ? { applicationName: facts.application } : {}),
      ...(facts.user !== undefined ? { userId: facts.user } : {}),
    };
    const r = renderFault(this.registry, {
      code: fault.code,
      status: fault.status,
      message: fault.message,
      description: fault.description,
      sequence: fault.sequence,
      ...(fault.headers ? { headers: fault.headers } : {}),
    }, callFacts);
    return { status: r.status, headers: r.headers, body: r.body ?? EMPTY };
  }
}
