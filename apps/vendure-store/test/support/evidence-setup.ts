import { GraphqlClient } from '../../src/graphql-client';
import { keepResponse } from './evidence';

// Every Shop/Admin API response the helpers receive goes to the evidence (when it is enabled).
if (process.env.GATEWAYKIT_EVIDENCE_DIR) GraphqlClient.onResponse = keepResponse;
