import { Link } from 'react-router';
import { Empty } from '../components/states';

export function NotFound() {
  return (
    <Empty title="No such page">
      <p>
        <Link to="/">Back to the overview</Link>
      </p>
    </Empty>
  );
}
