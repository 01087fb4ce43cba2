import { runHubConformance } from '../testing/hub-conformance.js';
import { createMemoryHub } from './memory-hub.js';

// In one process both "instances" are the same hub.
runHubConformance('memory', async () => {
  const hub = createMemoryHub();
  return { hubs: [hub, hub] };
});
