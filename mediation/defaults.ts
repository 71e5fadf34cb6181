/**
 * The shipped sequences (seed 000, fault sequences). The same text is in
 * home/repository/deployment/server/synapse-configs/default/sequences/<name>.xml (a test keeps the two equal):
 * the files are what operators edit; these copies are what a name falls back to when its file is deleted
 * or broken, so a fault always has a sequence to render it.
 */
import { FaultSequence, type FaultSequenceName } from '../errors/fault-sequences.js';

const HEADER = '<?xml version="1.0" encoding="UTF-8"?>\n';
const NS = 'http://ws.apache.org/ns/synapse';

/**
 * A fault handler: the status the caller suggested (HTTP_SC) unless there is none, the default JSON fault
 * body from ERROR_CODE, ERROR_MESSAGE and ERROR_DETAIL, messageType application/json, send.
 */
function handler(name: string, comment: string, defaultStatus: number): string {
  return `${HEADER}<!--
${comment}
  Runs with ERROR_CODE, ERROR_MESSAGE and ERROR_DETAIL set (default scope) and HTTP_SC (axis2 scope) holding
  the status the gateway suggests. To change the response, edit this file, or build your own in a sequence of
  yours and call it here by key followed by <drop/> (docs/mediation.md, "Custom error messages").
-->
<sequence xmlns="${NS}" name="${name}">
    <filter source="$axis2:HTTP_SC" regex="[1-9][0-9][0-9]">
        <else>
            <property name="HTTP_SC" value="${defaultStatus}" scope="axis2" type="INTEGER"/>
        </else>
    </filter>
    <payloadFactory media-type="json">
        <format>{"fault":{"code":$1,"type":"Status report","message":"$2","description":"$3"}}</format>
        <args>
            <arg evaluator="xml" expression="$ctx:ERROR_CODE"/>
            <arg evaluator="xml" expression="$ctx:ERROR_MESSAGE"/>
            <arg evaluator="xml" expression="$ctx:ERROR_DETAIL"/>
        </args>
    </payloadFactory>
    <property name="messageType" value="application/json" scope="axis2"/>
    <send/>
</sequence>
`;
}

function passThrough(name: string, comment: string): string {
  return `${HEADER}<!--
${comment}
-->
<sequence xmlns="${NS}" name="${name}">
</sequence>
`;
}

const S = FaultSequence;

export const BUILTIN_SEQUENCE_TEXT: Readonly<Record<FaultSequenceName, string>> = {
  [S.FAULT]: handler(S.FAULT, `  fault: the primary fault sequence. Sluice runs it for an error while an API resource runs that no
  other sequence handles: backend and transport errors (101xxx), 700700 API blocked, 900422 invalid
  GraphQL query, 900424, 102511 incomplete payload, 400. It is also the fallback of every other handler.`, 500),
  [S.MAIN]: `${HEADER}<!--
  main: runs when the called endpoint does not exist (no API matches the request path). Answers 404 with
  a JSON fault body.
-->
<sequence xmlns="${NS}" name="main">
    <filter source="$axis2:HTTP_SC" regex="[1-9][0-9][0-9]">
        <else>
            <property name="HTTP_SC" value="404" scope="axis2" type="INTEGER"/>
        </else>
    </filter>
    <payloadFactory media-type="json">
        <format>{"fault":{"code":404,"type":"Status report","message":"Not Found","description":"No API matches the request path. Check the API context and version in the URL"}}</format>
        <args/>
    </payloadFactory>
    <property name="messageType" value="application/json" scope="axis2"/>
    <send/>
</sequence>
`,
  [S.AUTH_FAILURE]: handler(S.AUTH_FAILURE, `  _auth_failure_handler_: API authentication and authorization errors: 900900, 900901 invalid
  credentials, 900902 missing credentials, 900905, 900907, 900908, 900909, 900910, 900911.`, 401),
  [S.PRODUCTION_KEY_ERROR]: handler(S.PRODUCTION_KEY_ERROR, `  _production_key_error_: a production key calls an API that has no production endpoint (900901).`, 401),
  [S.SANDBOX_KEY_ERROR]: handler(S.SANDBOX_KEY_ERROR, `  _sandbox_key_error_: a sandbox key calls an API that has no sandbox endpoint (900901).`, 401),
  [S.THROTTLE_OUT]: handler(S.THROTTLE_OUT, `  _throttle_out_handler_: a request is throttled out (900800 to 900807). When the gateway knows when
  the caller may retry, it sets the Retry-After header before this runs.`, 429),
  [S.TOKEN_FAULT]: handler(S.TOKEN_FAULT, `  _token_fault_: an error while invoking the token API through the gateway.`, 500),
  [S.RESOURCE_MISMATCH]: handler(S.RESOURCE_MISMATCH, `  _resource_mismatch_handler_: no resource of the API matches the request (900906, 403).`, 403),
  [S.CORS_REQUEST]: `${HEADER}<!--
  _cors_request_handler_: CORS preflight replies. The gateway adds the CORS headers (from [apim.cors] and
  the API) and runs this for an OPTIONS preflight: it answers without a body. For any other method it does
  nothing, so the handlers may call it by key the way the reference system's handlers do.
-->
<sequence xmlns="${NS}" name="_cors_request_handler_">
    <filter source="$axis2:HTTP_METHOD" regex="OPTIONS">
        <then>
            <filter source="$axis2:HTTP_SC" regex="[1-9][0-9][0-9]">
                <else>
                    <property name="HTTP_SC" value="200" scope="axis2" type="INTEGER"/>
                </else>
            </filter>
            <property name="NO_ENTITY_BODY" value="true" scope="axis2" type="BOOLEAN"/>
            <respond/>
        </then>
    </filter>
</sequence>
`,
  [S.THREAT_FAULT]: handler(S.THREAT_FAULT, `  _threat_fault_: threat detection (payload validation: JSON or XML too deep, too large, not valid).`, 400),
  [S.WS_DISPATCH]: passThrough(S.WS_DISPATCH, `  dispatchSeq: default handler of inbound WebSocket calls. Pass-through: add mediators here to act on
  each inbound call.`),
  [S.WS_OUT_DISPATCH]: passThrough(S.WS_OUT_DISPATCH, `  outDispatchSeq: handles outbound WebSocket calls. Pass-through: add mediators here to act on each
  outbound call.`),
};
