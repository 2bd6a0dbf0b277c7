// Answers of the account endpoints (docs/contract.md "Resources").
export interface Account {
  object: 'account';
  id: string;
  name: string;
  livemode: boolean;
  credential: { type: 'api_key' | 'oauth'; scopes: string[]; key_id?: string; client_id?: string };
}

export interface Balance {
  object: 'balance';
  currency: string;
  /** Cents. */
  available: number;
  livemode: boolean;
}

export interface Price {
  object: 'price';
  item: string;
  /** Cents; may be fractional. */
  unit_amount: number;
  currency: string;
}
