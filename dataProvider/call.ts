import { parseEnvelope } from './envelope';
import { send } from './http';
import { buildRequest } from './request';
import { apiOf, failureOf, type Params, type ProviderState, type Verb } from './state';
import { paramsFor, type VerbRequest } from './verbRequests';
import type { ApiCall, InvokeOptions } from './types';

export interface CallExtra {
    signal?: AbortSignal;
    failure?: string;
    onProgress?: InvokeOptions['onProgress'];
}

/** Sends one declared call and answers the envelope, or throws the platform's failure as an HttpError. */
export async function runCall(
    state: ProviderState,
    resource: string,
    call: ApiCall,
    params: Params,
    input: Params,
    extra: CallExtra = {},
): Promise<unknown> {
    const request = buildRequest(state.prefix, call, params, input);
    const answer = await send(
        request.url,
        {
            method: request.method,
            headers: request.headers,
            body: request.body,
            signal: extra.signal,
            onProgress: extra.onProgress,
        },
        state.http,
    );
    return parseEnvelope(answer, call.success ?? apiOf(state, resource)!.success, call.failure ?? extra.failure);
}

/** Runs a resource's declared verb with the verb's request. */
export function runVerb(state: ProviderState, resource: string, verb: Verb, request: VerbRequest): Promise<unknown> {
    const call = apiOf(state, resource)![verb]!;
    return runCall(state, resource, call, paramsFor(call, request), request.input, {
        signal: request.signal,
        failure: failureOf(state, resource, verb),
        onProgress: request.onProgress,
    });
}
