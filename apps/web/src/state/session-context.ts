import { createContext } from 'react';

/** Whether this server asks for a token, and how to end the session (SessionGate provides it). */
export interface SessionControl {
  required: boolean;
  logOut: () => void;
}

export const SessionContext = createContext<SessionControl>({
  required: false,
  logOut: () => undefined,
});
