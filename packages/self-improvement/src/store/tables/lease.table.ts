/** Leader leases: one row per name; the holder runs the loop until expires_at unless it renews. */
export interface LeaseTable {
  name: string;
  holder: string;
  acquired_at: string;
  expires_at: string;
}
