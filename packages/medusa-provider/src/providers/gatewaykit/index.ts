import { ModuleProvider, Modules } from '@medusajs/framework/utils';
import { GatewaykitCardService } from './card';
import { GatewaykitHostedService } from './hosted';
import { GatewaykitLocalService } from './local';

// One config entry (id "gatewaykit") registers three providers, each enabled per region:
// pp_gatewaykit_gatewaykit, pp_gatewaykit-hosted_gatewaykit, pp_gatewaykit-local_gatewaykit.
export default ModuleProvider(Modules.PAYMENT, {
  services: [GatewaykitCardService, GatewaykitHostedService, GatewaykitLocalService],
});
