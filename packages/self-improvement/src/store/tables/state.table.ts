/** Small shared state by key (the circuit breaker, the pause). */
export interface StateTable {
  key: string;
  value_json: string;
  updated_at: string;
}
