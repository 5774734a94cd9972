import { Injectable, OnModuleInit } from '@nestjs/common';
import { DomainEvent, SecuritySignal } from '../events/domain-event.catalogue';
import { DomainEvents } from '../events/domain-events.service';
import { Metrics } from './metrics.service';

/**
 * The counters of changes and outcomes, from the domain events once they have committed (a
 * change that rolled back is not counted). Outcomes with no event of their own (a refresh
 * answered, a code checked) are still counted where they happen.
 */
@Injectable()
export class EventMetrics implements OnModuleInit {
  constructor(
    private readonly bus: DomainEvents,
    private readonly metrics: Metrics,
  ) {}

  onModuleInit(): void {
    this.bus.onCommitted((event) => this.count(event));
    this.bus.onSignalCommitted((signal) => this.countSignal(signal));
  }

  private count(event: DomainEvent): void {
    switch (event.type) {
      case 'user.created':
        return this.metrics.registered();
      case 'session.created':
        return this.metrics.login('ok');
      case 'user.password_changed':
        return this.metrics.revoked('password_reset');
      case 'user.updated':
        if (event.data.changes.includes('disabled') && event.data.user.disabledAt) {
          this.metrics.revoked('account_disabled');
        }
        return;
      case 'user.deleted':
        return this.metrics.revoked('account_deleted');
      case 'passkey.added':
        return this.metrics.passkey('registration', 'ok');
      case 'session.revoked':
        return this.countRevoked(event.data);
    }
  }

  private countRevoked(data: Extract<DomainEvent, { type: 'session.revoked' }>['data']): void {
    switch (data.reason) {
      case 'logout':
        return this.metrics.revoked('logout');
      // One per session, as each was its own ending.
      case 'ended_elsewhere':
        return data.sessions.forEach(() => this.metrics.revoked('session_ended'));
      case 'reuse_detected':
        this.metrics.refreshed('reuse_detected');
        return this.metrics.revoked('refresh_reuse');
      // An administrator ended them: every session of the account, once per action.
      case 'admin':
        return this.metrics.revoked('admin');
    }
  }

  private countSignal(signal: SecuritySignal): void {
    if (signal.type === 'login.failed') this.metrics.login('failed');
  }
}
