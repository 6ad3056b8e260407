import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, buildConnector, Pool } from 'undici';
import { classifyAddress, type OutboundPolicy, refusalOf } from '../domain/address-policy.ts';

/** A connection the policy forbids; recorded as the attempt's error, no request having been sent. */
export class OutboundAddressRefused extends Error {
  constructor(detail: string) {
    super(`refused by the outbound address policy: ${detail}`);
    this.name = 'OutboundAddressRefused';
  }
}

/**
 * A socket `lookup` that refuses a name when any of its addresses is forbidden: the check is on
 * the addresses actually connected to, so a name whose DNS changed since it was accepted
 * (rebinding) is still refused.
 */
function guardedLookup(policy: OutboundPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      for (const { address } of addresses) {
        const refusal = refusalOf(classifyAddress(address) ?? 'private', policy);
        if (refusal) return callback(new OutboundAddressRefused(`${hostname} resolves to ${address}, ${refusal}`), '', 0);
      }
      if (options.all) return (callback as unknown as (error: null, all: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
}

/** undici's connector with the policy applied: address literals here (sockets skip the lookup for them), names in the lookup. */
function guardedConnector(policy: OutboundPolicy, options: buildConnector.BuildOptions = {}): buildConnector.connector {
  const connect = buildConnector({ ...options, lookup: guardedLookup(policy) });
  return (target, callback) => {
    // An address Node would connect to without a lookup but ipaddr.js cannot read is refused rather than let through.
    const literal = classifyAddress(target.hostname) ?? (isIP(target.hostname) ? 'private' : undefined);
    const refusal = literal && refusalOf(literal, policy);
    if (refusal) return callback(new OutboundAddressRefused(`${target.hostname} is ${refusal}`), null);
    connect(target, callback);
  };
}

type GuardedOptions<T> = Omit<T, 'connect'> & { connect?: buildConnector.BuildOptions };

/**
 * Every outbound request textrelay makes (callbacks, receive webhooks, the upstream relay) goes
 * through an Agent or Pool from here, so the same address policy applies to all of them.
 */
export function createGuardedAgent(policy: OutboundPolicy, options: GuardedOptions<Agent.Options> = {}): Agent {
  return new Agent({ ...options, connect: guardedConnector(policy, options.connect) });
}

export function createGuardedPool(origin: string, policy: OutboundPolicy, options: GuardedOptions<Pool.Options> = {}): Pool {
  return new Pool(origin, { ...options, connect: guardedConnector(policy, options.connect) });
}
