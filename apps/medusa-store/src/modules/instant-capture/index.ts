import { ModuleProvider, Modules } from '@medusajs/framework/utils';
import { InstantCaptureProvider } from './service';

export default ModuleProvider(Modules.PAYMENT, { services: [InstantCaptureProvider] });
